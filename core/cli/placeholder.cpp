// SPDX-License-Identifier: MIT
namespace cl::cli { int placeholder() { return 0; } }
