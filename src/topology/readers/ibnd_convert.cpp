// SPDX-License-Identifier: GPL-2.0-or-later
// libibnetdisc does not tell its caller that a discovery went wrong: a failed or timed
// out SMP is printed to stderr and the walk goes on without what was behind it. What it
// leaves behind is structural, and that is what this file looks for: ports that were up
// but lead nowhere, PortInfo and NodeDescription that were never filled in.
#include "topology/readers/ibnd_convert.hpp"

#include <fmt/format.h>
#include <cctype>
#include <unordered_map>
#include <vector>

#include "topology/readers/ibnd_link_rate.hpp"
#include "topology/readers/raw_fabric_order.hpp"
#include "topology/readers/raw_link_rate.hpp"
#include "topology/readers/reader_error.hpp"

namespace fabricfit {
namespace {

constexpr std::uint32_t kPhysStateLinkUp = 5;

NodeType node_type(const ibnd_node_t* node) {
  switch (node->type) {
    case IB_NODE_SWITCH: return NodeType::Switch;
    case IB_NODE_ROUTER: return NodeType::Router;
    default: return NodeType::Ca;
  }
}

// As ibnetdiscover prints it (clean_nodedesc): at most 63 characters, anything not
// printable as a space, so that live discovery and ibnetdiscover text agree.
std::string clean_description(const char* raw) {
  std::string out;
  for (std::size_t i = 0; i < 63 && raw[i] != '\0'; ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    out += std::isprint(c) ? static_cast<char>(c) : ' ';
  }
  return out;
}

// "S-0002c90301000000", the id ibnetdiscover gives a node.
std::string node_id(const ibnd_node_t* node) {
  const char letter = node->type == IB_NODE_SWITCH ? 'S' : node->type == IB_NODE_ROUTER ? 'R' : 'H';
  return fmt::format("{}-{:016x}", letter, node->guid);
}

std::uint32_t field(ibnd_port_t* port, enum MAD_FIELDS f) {
  return mad_get_field(port->info, 0, f);
}

bool port_info_read(ibnd_port_t* port) {
  // PhysState is 1..7 in any PortInfo a port sent; a port created only because a
  // neighbour's NodeInfo named it, whose own PortInfo never came, is all zeros.
  return field(port, IB_PORT_PHYS_STATE_F) != 0;
}

PortRateCodes rate_codes(ibnd_node_t* node, ibnd_port_t* port) {
  PortRateCodes codes;
  codes.width_active = field(port, IB_PORT_LINK_WIDTH_ACTIVE_F);
  codes.speed_active = field(port, IB_PORT_LINK_SPEED_ACTIVE_F);
  codes.ext_speed_active = field(port, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
  codes.fdr10 = (mad_get_field(port->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F) & kMlnxFdr10) != 0;
  // A switch states its capabilities on port 0 only.
  ibnd_port_t* capabilities = node->type == IB_NODE_SWITCH ? node->ports[0] : port;
  codes.has_ext_speeds =
      capabilities != nullptr && (field(capabilities, IB_PORT_CAPMASK_F) & kCapHasExtSpeeds) != 0;
  return codes;
}

// "3", "1-4,7": port numbers for a message.
std::string port_list(const std::vector<int>& ports) {
  std::string out;
  for (std::size_t i = 0; i < ports.size();) {
    std::size_t j = i;
    while (j + 1 < ports.size() && ports[j + 1] == ports[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(ports[i]) : fmt::format("{}-{}", ports[i], ports[j]);
    i = j + 1;
  }
  return out;
}

class Converter {
 public:
  explicit Converter(ibnd_fabric_t* fabric) : fabric_(fabric) {}

  RawFabric convert(std::string origin) {
    RawFabric out;
    out.origin = std::move(origin);
    for (ibnd_node_t* node = fabric_->nodes; node != nullptr; node = node->next) {
      index_.emplace(node, static_cast<int>(nodes_.size()));
      nodes_.push_back(node);
    }
    out.nodes.reserve(nodes_.size());
    for (ibnd_node_t* node : nodes_) out.nodes.push_back(convert_node(node));
    out.unreachable = std::move(problems_);
    out.partial = !out.unreachable.empty();
    put_in_canonical_order(out);
    return out;
  }

 private:
  std::string name(ibnd_node_t* node) const {
    return fmt::format("{} \"{}\"", node_id(node), clean_description(node->nodedesc));
  }

  RawNode convert_node(ibnd_node_t* node) {
    RawNode raw;
    raw.type = node_type(node);
    raw.guid = node->guid;
    raw.system_guid = mad_get_field64(node->info, 0, IB_NODE_SYSTEM_GUID_F);
    raw.description = clean_description(node->nodedesc);
    raw.nports = node->numports;
    if (raw.description.empty())
      problems_.push_back(fmt::format("{}: NodeDescription not read", node_id(node)));

    std::vector<int> not_read;
    if (node->type == IB_NODE_SWITCH && node->ports[0] == nullptr) not_read.push_back(0);
    for (int p = 1; p <= node->numports; ++p) {
      ibnd_port_t* port = node->ports[p];
      if (port == nullptr) {
        // A switch has every port queried; a CA only the ports discovery came through.
        if (node->type == IB_NODE_SWITCH) not_read.push_back(p);
        continue;
      }
      if (port->remoteport == nullptr) {
        if (port_info_read(port) && field(port, IB_PORT_PHYS_STATE_F) == kPhysStateLinkUp) {
          problems_.push_back(
              fmt::format("{} port {}: link is up but the node behind it was not reached", name(node), p));
        }
        continue;
      }
      raw.ports.push_back(convert_port(node, port));
    }
    if (!not_read.empty()) {
      problems_.push_back(fmt::format("{} port{} {}: PortInfo not read", name(node),
                                      not_read.size() > 1 ? "s" : "", port_list(not_read)));
    }
    return raw;
  }

  RawPort convert_port(ibnd_node_t* node, ibnd_port_t* port) {
    ibnd_port_t* remote = port->remoteport;
    if (remote->remoteport != port || remote->node == nullptr) {
      throw DiscoveryError(
          fmt::format("inconsistent discovery data: {} port {} names a peer that does not name it back",
                      name(node), port->portnum));
    }
    const auto peer = index_.find(remote->node);
    if (peer == index_.end()) {
      throw DiscoveryError(
          fmt::format("inconsistent discovery data: the peer of {} port {} is not in the fabric", name(node),
                      port->portnum));
    }
    RawPort raw;
    raw.number = port->portnum;
    raw.guid = port->guid;
    // A switch has one LID, on port 0; ibnetdiscover shows it on every port.
    raw.lid = node->type == IB_NODE_SWITCH ? node->smalid : port->base_lid;
    raw.peer = peer->second;
    raw.peer_port = remote->portnum;
    if (!port_info_read(port)) {
      raw.rate = unknown_link_rate();
      problems_.push_back(
          fmt::format("{} port {}: PortInfo not read, link rate unknown", name(node), port->portnum));
      return raw;
    }
    const PortRateCodes codes = rate_codes(node, port);
    raw.rate = decode_link_rate(codes);
    if (is_unknown(raw.rate)) {
      problems_.push_back(fmt::format(
          "{} port {}: link rate not understood (width code {}, speed code {}, "
          "extended speed code {})",
          name(node), port->portnum, codes.width_active, codes.speed_active, codes.ext_speed_active));
    }
    return raw;
  }

  ibnd_fabric_t* fabric_;
  std::vector<ibnd_node_t*> nodes_;
  std::unordered_map<const ibnd_node_t*, int> index_;
  std::vector<std::string> problems_;
};

}  // namespace

RawFabric convert_ibnd_fabric(ibnd_fabric_t* fabric, std::string origin) {
  return Converter(fabric).convert(std::move(origin));
}

}  // namespace fabricfit
