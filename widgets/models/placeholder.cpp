// SPDX-License-Identifier: MIT
namespace cl::gui { int modelsPlaceholder() { return 0; } }
