// SPDX-License-Identifier: GPL-2.0-or-later
#include "generated_fabric.hpp"

#include "topology/readers/ibnetdiscover_reader.hpp"

namespace fabricfit::testing {

Fabric generated_fabric(const ClosSpec& spec, const ModelOptions& options) {
  return build_fabric(read_ibnetdiscover_text(generate_ibnetdiscover(spec), "generated"), options);
}

}  // namespace fabricfit::testing
