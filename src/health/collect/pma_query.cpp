// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/collect/pma_query.hpp"

#include <fmt/format.h>
#include <infiniband/mad.h>
#include <chrono>
#include <vector>

namespace fabricfit {
namespace {

// ClassPortInfo CapabilityMask bits of the PM class (IBA vol. 1, 16.1.2): the port
// answers PortCountersExtended with all counters (bit 9) or without the IETF ones (bit 10).
constexpr std::uint32_t kExtWidthSupported = 1u << 9;
constexpr std::uint32_t kExtWidthNoIetf = 1u << 10;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ib_portid_t lid_port(int lid) {
  ib_portid_t id{};
  ib_portid_set(&id, lid, 0, 0);
  return id;
}

void put(PortSample& s, Counter c, std::uint64_t v, int bits) {
  s.value[static_cast<std::size_t>(c)] = v;
  s.bits[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(bits);
}

}  // namespace

PmaPort::PmaPort(const std::string& ca, int ca_port, unsigned timeout_ms) : timeout_ms_(timeout_ms) {
  int classes[] = {IB_PERFORMANCE_CLASS};
  std::vector<char> name(ca.begin(), ca.end());
  name.push_back('\0');
  port_ = mad_rpc_open_port(ca.empty() ? nullptr : name.data(), ca_port, classes, 1);
  if (port_ == nullptr)
    throw PmaError(fmt::format("cannot open a MAD port on {} for Performance Management queries",
                               ca.empty() ? "the first CA" : ca));
  mad_rpc_set_timeout(port_, static_cast<int>(timeout_ms));
  // One try per query: a sweep is bounded in time, a dead port must not cost retries.
  mad_rpc_set_retries(port_, 1);
}

PmaPort::~PmaPort() {
  mad_rpc_close_port(port_);
}

std::optional<bool> PmaPort::extended_supported(int lid, int port) {
  std::uint8_t buf[1024] = {};
  ib_portid_t id = lid_port(lid);
  if (!pma_query_via(buf, &id, port, timeout_ms_, CLASS_PORT_INFO, port_)) return std::nullopt;
  const std::uint32_t cap = mad_get_field(buf, 0, IB_CPI_CAPMASK_F);
  return (cap & (kExtWidthSupported | kExtWidthNoIetf)) != 0;
}

std::optional<PortSample> PmaPort::read(int lid, int port, bool extended) {
  std::uint8_t buf[1024] = {};
  ib_portid_t id = lid_port(lid);
  if (!pma_query_via(buf, &id, port, timeout_ms_, IB_GSI_PORT_COUNTERS, port_)) return std::nullopt;
  PortSample s;
  s.time_unix_ms = now_ms();
  const auto get = [&](int field) {
    return static_cast<std::uint64_t>(mad_get_field(buf, 0, static_cast<MAD_FIELDS>(field)));
  };
  put(s, Counter::SymbolErrors, get(IB_PC_ERR_SYM_F), counter_bits(Counter::SymbolErrors));
  put(s, Counter::LinkErrorRecovery, get(IB_PC_LINK_RECOVERS_F), counter_bits(Counter::LinkErrorRecovery));
  put(s, Counter::LinkDowned, get(IB_PC_LINK_DOWNED_F), counter_bits(Counter::LinkDowned));
  put(s, Counter::RcvErrors, get(IB_PC_ERR_RCV_F), counter_bits(Counter::RcvErrors));
  put(s, Counter::LocalLinkIntegrity, get(IB_PC_ERR_LOCALINTEG_F), counter_bits(Counter::LocalLinkIntegrity));
  put(s, Counter::ExcessiveBufferOverrun, get(IB_PC_ERR_EXCESS_OVR_F),
      counter_bits(Counter::ExcessiveBufferOverrun));
  put(s, Counter::XmitDiscards, get(IB_PC_XMT_DISCARDS_F), counter_bits(Counter::XmitDiscards));
  put(s, Counter::XmitWait, get(IB_PC_XMT_WAIT_F), counter_bits(Counter::XmitWait));
  put(s, Counter::XmitData, get(IB_PC_XMT_BYTES_F), counter_bits(Counter::XmitData));
  if (extended) {
    std::uint8_t ext[1024] = {};
    if (!pma_query_via(ext, &id, port, timeout_ms_, IB_GSI_PORT_COUNTERS_EXT, port_)) return std::nullopt;
    put(s, Counter::XmitData, mad_get_field64(ext, 0, IB_PC_EXT_XMT_BYTES_F), 64);
  }
  return s;
}

bool PmaPort::clear(int lid, int port, bool extended) {
  std::uint8_t buf[1024] = {};
  ib_portid_t id = lid_port(lid);
  // Every counter of the attribute (the mask perfquery -R uses).
  if (!performance_reset_via(buf, &id, port, 0xffffffffu, timeout_ms_, IB_GSI_PORT_COUNTERS, port_))
    return false;
  return !extended || performance_reset_via(buf, &id, port, 0xffffffffu, timeout_ms_,
                                            IB_GSI_PORT_COUNTERS_EXT, port_) != nullptr;
}

}  // namespace fabricfit
