// SPDX-License-Identifier: GPL-2.0-or-later
// Clos fabrics as `fabricfit generate` writes them, for the tests of every layer: a spec
// from the few sizes a test picks, and the Fabric discovery builds from the generator's text.
#pragma once

#include "topology/fabric_builder.hpp"
#include "topology/generate/clos_generator.hpp"

namespace fabricfit::testing {

// The sizes tests pick, for designated initializers: ClosSpec's own would warn
// (-Wmissing-field-initializers), as some of its members have no default initializer.
struct ClosSize {
  int pods = ClosSpec{}.pods;
  int leaves = ClosSpec{}.leaves;
  int hosts_per_leaf = ClosSpec{}.hosts_per_leaf;
  int spines = ClosSpec{}.spines;
  int uplinks = ClosSpec{}.uplinks;
  int rails = ClosSpec{}.rails;
  int cores = ClosSpec{}.cores;
};

// The spec of those sizes; every other field as ClosSpec defaults it.
[[nodiscard]] inline ClosSpec clos_spec(const ClosSize& size) {
  ClosSpec spec;
  spec.pods = size.pods;
  spec.leaves = size.leaves;
  spec.hosts_per_leaf = size.hosts_per_leaf;
  spec.spines = size.spines;
  spec.uplinks = size.uplinks;
  spec.rails = size.rails;
  spec.cores = size.cores;
  return spec;
}

// The generator's text for `spec`, read by the ibnetdiscover reader and built as discovery
// builds it (not make_clos's shortcut: the reader is part of what these fabrics go through).
[[nodiscard]] Fabric generated_fabric(const ClosSpec& spec, const ModelOptions& options = {});

}  // namespace fabricfit::testing
