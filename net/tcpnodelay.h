// SPDX-License-Identifier: MIT
#pragma once

// Qt Network opens its HTTP connections without TCP_NODELAY and has no way to ask for it: the last
// piece of a request body then waits in the kernel (Nagle's algorithm) until the server acknowledges
// the request's head, which a server delays up to 40 ms (more over a real network: a round trip).
// A proxy that adds that to every request an agent sends is not one to put in front of an agent
// (bench/bench_record.cpp: +47 ms per 16 KB request on loopback). Setting TCP_NODELAY on a socket
// also sends at once what it holds back.

namespace cl::net {

// Sets TCP_NODELAY on every TCP socket this process has open (a proxy's sockets all carry requests
// and answers that must not wait). Linux: read from /proc/self/fd; elsewhere nothing.
void sendHeldTcpData();

} // namespace cl::net
