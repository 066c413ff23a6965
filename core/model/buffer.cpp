// SPDX-License-Identifier: MIT
#include "core/model/buffer.h"

namespace cl {

void padBuffer(std::string &bytes)
{
    const std::size_t size = bytes.size();
    bytes.resize(size + kBufferPadding, ' ');
    bytes.resize(size); // the spaces stay in the capacity
}

} // namespace cl
