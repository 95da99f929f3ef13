// kiln_status_message (kiln/kernel_abi.h): every status code, the run-time
// data refusals included, has its own non-empty phrase, and a code outside
// the enum still gets one (the VM and AOT runners print whatever a run returns).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kiln/kernel_abi.h"

namespace {

TEST(StatusMessage, EveryCodeHasItsOwnPhrase) {
  const int codes[] = {KILN_OK,
                       KILN_ERR_INVALID_ARGUMENT,
                       KILN_ERR_OUT_OF_RANGE,
                       KILN_ERR_UNIMPLEMENTED,
                       KILN_ERR_ALIGNMENT,
                       KILN_ERR_SHAPE_MISMATCH,
                       KILN_ERR_INDEX_OUT_OF_RANGE,
                       KILN_ERR_BAD_VALUE,
                       KILN_ERR_CANCELLED,
                       KILN_ERR_DEADLINE,
                       KILN_ERR_ITERATION_LIMIT,
                       KILN_ERR_BUFFER_TOO_SMALL};
  std::set<std::string> seen;
  for (int code : codes) {
    const char* m = kiln_status_message(code);
    ASSERT_NE(m, nullptr) << code;
    EXPECT_FALSE(std::string(m).empty()) << code;
    EXPECT_TRUE(seen.insert(m).second) << "code " << code << " repeats \"" << m << "\"";
  }
  const std::string unknown = kiln_status_message(99);
  EXPECT_FALSE(unknown.empty());
  EXPECT_EQ(seen.count(unknown), 0u);
  EXPECT_EQ(std::string(kiln_status_message(-1)), unknown);
}

TEST(StatusMessage, DataRefusalCodesFollowTheOldOnes) {
  // Appended to the enum: existing values (and modules' meanings) unchanged.
  EXPECT_EQ(KILN_ERR_ALIGNMENT, 4);
  EXPECT_EQ(KILN_ERR_SHAPE_MISMATCH, 5);
  EXPECT_EQ(KILN_ERR_INDEX_OUT_OF_RANGE, 6);
  EXPECT_EQ(KILN_ERR_BAD_VALUE, 7);
  EXPECT_NE(std::string(kiln_status_message(KILN_ERR_SHAPE_MISMATCH)).find("shape"),
            std::string::npos);
}

}  // namespace
