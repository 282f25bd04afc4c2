// SPDX-License-Identifier: GPL-2.0-or-later
// What build_fabric() reports about a subnet that is not a clean Clos. Each entry of
// Fabric::warnings starts with the tag of its kind and a colon ("unnamed-hca: ..."), so
// that people read one line per finding and programs can still tell the kinds apart.
#pragma once

#include <string>
#include <string_view>

#include "topology/fabric.hpp"

namespace fabricfit {

enum class WarningKind {
  PartialDiscovery,      // the reader could not reach part of the subnet
  UnnamedHca,            // firmware default NodeDescription: no host name known
  DefaultHostName,       // "localhost" and the like: not a name Slurm can know
  UnmatchedName,         // description does not match the host-name pattern
  NonComputeHca,         // HCAs kept out of the compute graph by the compute-HCA pattern
  SharpNodes,            // SHARP aggregation nodes: not hosts; the fabric can run SHARP
  Router,                // IB routers: kept, not placed on
  DuplicateGuid,         // two nodes report one node GUID
  DuplicateHca,          // one host reports one HCA name twice
  InconsistentLink,      // the two ends of a cable disagree, or a port is cabled to itself
  UnknownRate,           // a link whose width/speed the reader could not tell
  HostOnSpine,           // compute HCAs cabled straight to a spine
  TooManyTiers,          // switches more than two hops above the leaves
  LeafWithoutUplink,     // a leaf that reaches no spine
  UnevenUplinks,         // a switch with fewer uplinks than its peers (cables missing)
  Island,                // part of the subnet not connected to the rest
  SwitchLoop,            // a cable between two switches of the same tier
  RailMismatch,          // an HCA cabled to the leaf of another rail than its name says
  TwoLeavesOneRail,      // a host on two leaves of one rail (dual-homed, not rail-optimised)
  HostSpansLeafGroups,   // a host whose HCAs land in different leaf groups
  MissingRail,           // a leaf group or host without a leaf/HCA on some rail
  NoHosts,               // no compute host at all
  ServiceLeaf,           // a switch serving only storage, management or service CAs
  CrossTierCable,        // a cable that skips a tier (leaf straight to a core)
  ExcludedHost,          // named hosts that are not compute hosts (by rule or Slurm's node list)
  SlurmNodeNotInFabric,  // Slurm nodes (--slurm-nodes) the fabric does not have
};

// "unnamed-hca", "switch-loop", ...
[[nodiscard]] std::string_view warning_tag(WarningKind kind);

// How many entries of fabric.warnings are of this kind.
[[nodiscard]] int count_warnings(const Fabric& fabric, WarningKind kind);

// "tag: message".
[[nodiscard]] std::string format_warning(WarningKind kind, std::string_view message);

}  // namespace fabricfit
