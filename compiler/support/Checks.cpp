//===- Checks.cpp - The check catalogue -----------------------------------===//
#include "kuiper/Checks.h"

using namespace kuiper;

namespace {
struct CheckInfo {
  const char *name;
  bool scheduleDependent;
  const char *summary;
};

const CheckInfo &info(CheckId id) {
  static const CheckInfo table[] = {
#define KUIPER_CHECK(Name, Id, ScheduleDependent, Summary) {Id, ScheduleDependent, Summary},
#include "kuiper/Checks.def"
  };
  return table[static_cast<unsigned>(id)];
}
} // namespace

const char *kuiper::checkName(CheckId id) { return info(id).name; }
const char *kuiper::checkSummary(CheckId id) { return info(id).summary; }
bool kuiper::isScheduleDependent(CheckId id) { return info(id).scheduleDependent; }

const std::vector<CheckId> &kuiper::allChecks() {
  static const std::vector<CheckId> all = {
#define KUIPER_CHECK(Name, Id, ScheduleDependent, Summary) CheckId::Name,
#include "kuiper/Checks.def"
  };
  return all;
}

std::optional<CheckId> kuiper::checkFromName(const std::string &name) {
  for (CheckId id : allChecks())
    if (name == checkName(id))
      return id;
  return std::nullopt;
}

std::vector<CheckId> kuiper::relatedChecks(CheckId id) {
  std::vector<CheckId> related;
#define KUIPER_CHECK_RELATED(Check, Violation)                                 \
  if (id == CheckId::Check)                                                    \
    related.push_back(CheckId::Violation);
#include "kuiper/Checks.def"
  return related;
}

const char *kuiper::statusName(CheckStatus status) {
  switch (status) {
  case CheckStatus::Proved:
    return "proved";
  case CheckStatus::Failed:
    return "failed";
  case CheckStatus::Unknown:
    return "unknown";
  case CheckStatus::Warning:
    return "warning";
  }
  return "unknown";
}

std::optional<CheckStatus> kuiper::statusFromName(const std::string &name) {
  for (CheckStatus s : {CheckStatus::Proved, CheckStatus::Failed, CheckStatus::Unknown,
                        CheckStatus::Warning})
    if (name == statusName(s))
      return s;
  return std::nullopt;
}
