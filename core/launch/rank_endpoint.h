#pragma once

#include <string>

namespace hetplan {

// How a rank meets its peers, as hetplan-worker's and hetplan-probe's command lines carry it
// (--rendezvous, --listen-address, --timeout-s) and runtime's Comm opens it.
struct RankEndpoint
{
    std::string rendezvous;                  // a shared directory or redis://HOST:PORT
    std::string listenAddress = "127.0.0.1"; // this rank's address as peers reach it
    double timeoutS = 60;                    // every blocking call: rendezvous and transfers
};

} // namespace hetplan
