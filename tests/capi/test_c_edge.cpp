// SPDX-License-Identifier: GPL-2.0-or-later
// The C edge (capi/c_edge.hpp): every exception becomes a status and a message in the
// caller's buffer, truncated to fit, and none escapes into slurmctld.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "capi/c_edge.hpp"

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

// This test binary's operator new can be made to fail, as it would when slurmctld runs
// out of memory. Every form of new and delete is replaced, so that none of them pairs
// ASan's allocator with this one's (a nothrow new from the runtime freed by this delete
// is an alloc-dealloc mismatch under ASan).
namespace {
thread_local bool fail_new = false;

void* allocate(std::size_t n) noexcept {
  return fail_new ? nullptr : std::malloc(n != 0 ? n : 1);
}
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

TEST(CEdge, BadInputIsEinvalWithItsMessage) {
  char err[64] = "";
  EXPECT_EQ(guarded(err, sizeof err, []() -> int { throw fabricfit::RequestError("no GPUs asked"); }),
            FF_EINVAL);
  EXPECT_STREQ(err, "no GPUs asked");
}

TEST(CEdge, AnythingElseIsInternal) {
  char err[64] = "";
  EXPECT_EQ(guarded(err, sizeof err, [] { throw std::runtime_error("map out of step"); }), FF_EINTERNAL);
  EXPECT_STREQ(err, "internal error: map out of step");
  EXPECT_EQ(guarded(err, sizeof err, [] { throw 42; }), FF_EINTERNAL);
  EXPECT_STREQ(err, "internal error");
}

// With memory gone, a failure is still reported: the message is written without
// allocating, where building it would throw again inside the handler and end slurmctld
// (std::terminate: guarded is noexcept).
TEST(CEdge, AFailureIsReportedWithNoMemoryLeft) {
  char err[64] = "";
  int status = FF_OK;
  const std::runtime_error failure("map out of step");
  status = guarded(err, sizeof err, [&] {
    fail_new = true;
    throw failure;
  });
  fail_new = false;
  EXPECT_EQ(status, FF_EINTERNAL);
  EXPECT_STREQ(err, "internal error: map out of step");
  EXPECT_EQ(guarded(err, sizeof err, [] { throw std::bad_alloc(); }), FF_EINTERNAL);
  EXPECT_EQ(std::string(err), std::string("internal error: ") + std::bad_alloc().what());
}

TEST(CEdge, MessagesAreTruncatedToTheBuffer) {
  char err[12] = "";
  EXPECT_EQ(guarded(err, sizeof err, [] { throw std::runtime_error("map out of step"); }), FF_EINTERNAL);
  EXPECT_STREQ(err, "internal er");
  char tiny[20] = "";
  copy_out("internal error: ", "abcdef", tiny, sizeof tiny);
  EXPECT_STREQ(tiny, "internal error: abc");
  // No buffer, or one of no size: nothing written, nothing thrown.
  copy_out("internal error: ", "abc", nullptr, 5);
  char untouched[2] = "x";
  copy_out("a", "b", untouched, 0);
  EXPECT_STREQ(untouched, "x");
}

TEST(CEdge, TheBodysStatusPassesThrough) {
  char err[8] = "";
  EXPECT_EQ(guarded(err, sizeof err, [] {}), FF_OK);
  EXPECT_EQ(guarded(err, sizeof err, [] { return FF_EINVAL; }), FF_EINVAL);
  EXPECT_STREQ(err, "");
}
