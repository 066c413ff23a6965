// SPDX-License-Identifier: MIT
#include "core/util/uuid.h"

#include <cstdio>
#include <random>

namespace cl::util {

std::string uuidFrom(std::uint64_t hi, std::uint64_t lo)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-8%03x-%012llx", unsigned(hi >> 32), unsigned((hi >> 16) & 0xFFFF),
                  unsigned(hi & 0xFFF), unsigned((lo >> 48) & 0xFFF), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
    return buf;
}

std::string randomUuid()
{
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    return uuidFrom(rng(), rng());
}

} // namespace cl::util
