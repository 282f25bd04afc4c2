// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/port_counters.hpp"

namespace fabricfit {

std::string_view counter_name(Counter c) {
  switch (c) {
    case Counter::SymbolErrors: return "SymbolErrorCounter";
    case Counter::LinkErrorRecovery: return "LinkErrorRecoveryCounter";
    case Counter::LinkDowned: return "LinkDownedCounter";
    case Counter::RcvErrors: return "PortRcvErrors";
    case Counter::LocalLinkIntegrity: return "LocalLinkIntegrityErrors";
    case Counter::ExcessiveBufferOverrun: return "ExcessiveBufferOverrunErrors";
    case Counter::XmitDiscards: return "PortXmitDiscards";
    case Counter::XmitWait: return "PortXmitWait";
    case Counter::XmitData: return "PortXmitData";
  }
  return "?";
}

int counter_bits(Counter c) {
  switch (c) {
    case Counter::LinkErrorRecovery:
    case Counter::LinkDowned: return 8;
    case Counter::LocalLinkIntegrity:
    case Counter::ExcessiveBufferOverrun: return 4;
    case Counter::XmitWait:
    case Counter::XmitData: return 32;
    default: return 16;
  }
}

}  // namespace fabricfit
