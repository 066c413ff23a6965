// SPDX-License-Identifier: MIT
#pragma once

// Version-4-shaped uuids, as the agents write them in their session records.

#include <cstdint>
#include <string>

namespace cl::util {

// A uuid from two numbers: the same numbers give the same uuid (deterministic conversions).
std::string uuidFrom(std::uint64_t hi, std::uint64_t lo);
// A random one (a new record appended to a session).
std::string randomUuid();

} // namespace cl::util
