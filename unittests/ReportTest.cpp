//===- ReportTest.cpp - JSON, SARIF and text forms of a Report ------------===//
#include "kuiper/Report.h"

#include <gtest/gtest.h>

using namespace kuiper;

namespace {

Report sampleReport() {
  Report r;
  r.file = "dir/\"odd\"\\name.kp";
  KernelReport k;
  k.name = "elu_fwd";
  k.verdict = Verdict::Failed;
  k.obligations = 2;
  k.trusted = {"exp"};
  CheckResult failed;
  failed.id = CheckId::Coverage;
  failed.status = CheckStatus::Failed;
  failed.file = "elu.kp";
  failed.line = 12;
  failed.col = 5;
  failed.message = "no thread writes y[i]\twhen\nn = 1";
  failed.counterexample = {{"n", "1"}, {"blockIdx.x", "0"}};
  failed.explanation = "no thread writes y[0]";
  failed.confirmed = true;
  CheckResult proved;
  proved.id = CheckId::Bounds;
  proved.status = CheckStatus::Proved;
  k.checks = {failed, proved};
  r.kernels.push_back(k);
  return r;
}

TEST(Report, JSONEscapesStrings) {
  std::string json = sampleReport().toJSON();
  EXPECT_NE(json.find(R"("file": "dir/\"odd\"\\name.kp")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"(no thread writes y[i]\twhen\nn = 1)"), std::string::npos);
  EXPECT_NE(json.find(R"("confirmed": true)"), std::string::npos);
  EXPECT_NE(json.find(R"("location": "elu.kp:12:5")"), std::string::npos);
  EXPECT_NE(json.find(R"("verified": false)"), std::string::npos);
}

TEST(Report, JSONControlCharacters) {
  Report r;
  r.file = std::string("a\x01") + "b";
  EXPECT_NE(r.toJSON().find("a\\u0001b"), std::string::npos);
}

TEST(Report, SARIFHasOneResultPerFailure) {
  std::string sarif = sampleReport().toSARIF();
  EXPECT_NE(sarif.find(R"("version": "2.1.0")"), std::string::npos);
  EXPECT_NE(sarif.find(R"("ruleId": "coverage")"), std::string::npos);
  EXPECT_EQ(sarif.find(R"("ruleId": "bounds")"), std::string::npos);
  EXPECT_NE(sarif.find(R"("startLine": 12)"), std::string::npos);
  EXPECT_NE(sarif.find(R"("level": "error")"), std::string::npos);
}

TEST(Report, TextIsClangStyle) {
  std::string text = sampleReport().toText();
  EXPECT_NE(text.find("elu.kp:12:5: error: no thread writes y[i]"), std::string::npos) << text;
  EXPECT_NE(text.find("[coverage]"), std::string::npos);
  EXPECT_NE(text.find("note:   n = 1"), std::string::npos);
  EXPECT_NE(text.find("kernel elu_fwd: FAILED"), std::string::npos);
}

TEST(Report, NotVerifiedNeverSaysVerified) {
  Report r;
  KernelReport k;
  k.name = "k";
  k.verdict = Verdict::NotVerified;
  r.kernels.push_back(k);
  EXPECT_FALSE(r.verified());
  std::string text = r.toText();
  EXPECT_EQ(text.find(": verified"), std::string::npos) << text;
}

TEST(Report, EmptyReportIsNotVerified) { EXPECT_FALSE(Report().verified()); }

} // namespace
