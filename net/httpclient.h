// SPDX-License-Identifier: MIT
#pragma once

// One HTTP POST to a model provider, blocking the calling thread (any thread: each call has its own
// QNetworkAccessManager and event loop; a QCoreApplication must exist). Streams the body of a
// successful answer to onData as it arrives; retries 429 and 5xx answers and dropped connections
// before the first byte, waiting what Retry-After says or backing off exponentially; gives up after
// timeoutMs without a byte; stops within 50 ms when the cancel flag is set.

#include "core/llm/provider.h"

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

namespace cl::net {

struct PostOptions {
    int timeoutMs = 120000; // inactivity: no byte for this long
    int retries = 3;
    int backoffMs = 1000;  // first wait without Retry-After, doubled each time
    int maxWaitMs = 60000; // longest wait between attempts (Retry-After included)
    const std::atomic_bool *cancel = nullptr;
    std::function<void(std::string_view)> onData;                                 // body bytes of a 2xx answer
    std::function<void(int attempt, int waitMs, const std::string &why)> onRetry; // before each wait
};

struct PostResult {
    int status = 0;    // HTTP status of the last attempt (0: no answer)
    std::string body;  // the whole body when onData is not set, or an error answer's body
    std::string error; // "" on a 2xx answer; else what went wrong, the provider's message included
    bool cancelled = false;
    bool timedOut = false;
    int attempts = 0;
};

PostResult post(const llm::HttpRequest &request, const PostOptions &options);

// Milliseconds a Retry-After value asks for (seconds or an HTTP date); -1 when it says nothing usable.
int retryAfterMs(const std::string &value);

} // namespace cl::net
