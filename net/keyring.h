// SPDX-License-Identifier: MIT
#pragma once

// API keys in the system keyring through QtKeychain (Secret Service / KWallet on Linux, the
// Keychain on macOS, the Credential Store on Windows): service "ContextLens", one entry per key
// name (the environment variable the key would otherwise come from, e.g. ANTHROPIC_API_KEY).
// Without QtKeychain at build time, or without a keyring service running, every call fails with a
// sentence saying so and the caller falls back to the environment. Each call waits for its job in a
// local event loop (at most timeoutMs): call it on a thread with an event dispatcher (the GUI
// thread), on a user action. Keys are never logged; errors never contain them.

#include <string>

namespace cl::net::keyring {

// Built with QtKeychain.
bool compiledIn();

struct Outcome {
    bool ok = false;
    bool notFound = false; // read / remove: no such entry (the keyring itself works)
    std::string value;     // read: the key
    std::string error;     // why not, in a sentence
};

Outcome read(const std::string &name, int timeoutMs = 5000);
Outcome write(const std::string &name, const std::string &secret, int timeoutMs = 5000);
Outcome remove(const std::string &name, int timeoutMs = 5000);

} // namespace cl::net::keyring
