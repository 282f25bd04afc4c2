// SPDX-License-Identifier: GPL-2.0-or-later
#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <string>
#include <system_error>

namespace fabricfit {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail("cannot create a temporary file beside " + path.string());
  auto cleanup = [&] {
    ::close(fd);
    ::unlink(tmpl.c_str());
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      cleanup();
      errno = saved;
      fail("cannot write " + path.string());
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
    const int saved = errno;
    cleanup();
    errno = saved;
    fail("cannot flush " + path.string());
  }
  ::close(fd);
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmpl.c_str());
    errno = saved;
    fail("cannot rename into " + path.string());
  }
}

std::size_t remove_stale_temporaries(const std::filesystem::path& path,
                                     std::chrono::seconds older_than) noexcept {
  namespace fs = std::filesystem;
  std::size_t removed = 0;
  try {
    const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    // mkstemp's name: the prefix and six characters.
    const std::string prefix = "." + path.filename().string() + ".";
    const auto cutoff = fs::file_time_type::clock::now() - older_than;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
      std::error_code stat_ec;
      if (!it->is_regular_file(stat_ec) || stat_ec) continue;
      const auto written = it->last_write_time(stat_ec);
      if (stat_ec || written > cutoff) continue;
      if (fs::remove(it->path(), stat_ec)) ++removed;
    }
  } catch (...) {  // NOLINT(bugprone-empty-catch): best effort; the next save tries again
  }
  return removed;
}

bool read_whole_file(const char* path, std::string& out) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(out.size() + static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      errno = saved;
      return false;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return true;
}

}  // namespace fabricfit
