// SPDX-License-Identifier: GPL-2.0-or-later
// Fragmentation over time from job records (cli/frag_history.hpp): the free GPUs after each
// start and end, on a generated fabric.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli/frag_history.hpp"
#include "cli_fixtures.hpp"

using namespace fabricfit;
using namespace fabricfit::cli;
using fabricfit::testing::job;
using fabricfit::testing::two_groups_of_four;

TEST(FragHistory, OnePointPerStartAndEndWithTheGpusOfTheJobsRunningThen) {
  const Fabric f = two_groups_of_four();
  const LocalityIndex index(f);
  const std::vector<int> total(static_cast<std::size_t>(index.host_count()), 8);
  // 1 starts at 100 on 2 nodes, ends at 200; 2 starts at 150 on 1 node and still runs;
  // 3 is pending; 4 ran on a host the fabric lacks.
  const std::vector<SlurmJob> jobs{job(1, "COMPLETED", "gpu[001-002]", 100, 200),
                                   job(2, "RUNNING", "gpu005", 150, 9999), job(3, "PENDING", "", 0, 0),
                                   job(4, "COMPLETED", "elsewhere", 120, 130)};
  const auto points = frag_history(index, total, jobs);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].time, 100);
  EXPECT_EQ(points[0].free_gpus, 48);
  EXPECT_EQ(points[1].time, 150);
  EXPECT_EQ(points[1].free_gpus, 40);
  EXPECT_EQ(points[2].time, 200);
  EXPECT_EQ(points[2].free_gpus, 56);
  for (const auto& p : points) EXPECT_TRUE(p.frag >= 0 && p.frag <= 1);
  // gpu005 alone busy strands its leaf group's other 3 hosts for 4-node jobs: more unusable than none.
  EXPECT_GE(points[2].unusable, 0);
  const auto svg = frag_history_svg(points);
  EXPECT_NE(svg.find("<svg id=\"frag-history\""), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') >= 3, true);
  EXPECT_NE(svg.find("data-time=\"200\" data-free=\"56\""), std::string::npos) << svg;
}

TEST(FragHistory, AJobEndingAndAnotherStartingInTheSameSecondIsOnePoint) {
  const Fabric f = two_groups_of_four();
  const LocalityIndex index(f);
  const std::vector<int> total(static_cast<std::size_t>(index.host_count()), 8);
  const auto points = frag_history(
      index, total, {job(1, "COMPLETED", "gpu001", 10, 20), job(2, "RUNNING", "gpu001", 20, 99)});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].free_gpus, 56);
  EXPECT_EQ(frag_history_svg({}).find("<svg"), std::string::npos);
}
