#pragma once

// The launcher and a host's agent speak in frames over the one SSH channel of that host; a rank
// and its host's agent speak the same frames over the job's local store socket
// (docs/launcher.md, "The host agent"). This header is the one owner of that wire format.

#include "core/base/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan::agent {

// A frame: kind (1 byte), rank (int32, little-endian; -1 when the frame is not a rank's),
// payload length (uint32, little-endian), payload.
enum class FrameKind : std::uint8_t {
    // launcher → agent
    Spec = 1,       // payload: encodeSpec(); the first frame, exactly once
    Cancel = 2,     // stop every rank (TERM, KILL after the grace period), clean up, finish
    StoreReply = 3, // payload: encodeStoreReply(); also agent → rank
    Heartbeat = 4,  // either way; an agent that hears nothing for kSilenceLimitS stops the job
    // agent → launcher
    Ready = 16,        // payload: "hetplan-worker VERSION"; sent before anything else
    Started = 17,      // rank; payload: the process id as decimal text
    Stdout = 18,       // rank; payload: a piece of the rank's stdout (≤ kMaxOutputPieceBytes)
    Stderr = 19,       // rank; likewise for stderr
    Exited = 20,       // rank; payload: "exit N" or "signal N"
    Result = 21,       // rank; payload: the rank's result file (RankSpec::resultFile)
    StoreRequest = 22, // payload: encodeStoreRequest(); also rank → agent
    Message = 23,      // payload: a line a person should read ("2 ranks killed after TERM")
    Finished = 24,     // every rank ended, the job folder is removed; the agent exits next
};

struct Frame
{
    FrameKind kind = FrameKind::Message;
    std::int32_t rank = -1;
    std::string payload;
};

inline constexpr std::size_t kFrameHeaderBytes = 9;
// Results and specs are the largest payloads; a longer length means a corrupt stream.
inline constexpr std::size_t kMaxFramePayloadBytes = std::size_t(16) << 20;
// Output travels in pieces no longer than this, so one rank cannot hold the channel.
inline constexpr std::size_t kMaxOutputPieceBytes = std::size_t(16) << 10;
inline constexpr double kHeartbeatIntervalS = 2;
inline constexpr double kSilenceLimitS = 30;

std::string encodeFrame(const Frame &frame);

// Collects bytes as they arrive and cuts them into frames. A stream that breaks the format
// (unknown kind, payload longer than kMaxFramePayloadBytes) is an error; the caller then drops
// the connection: nothing after a broken frame can be trusted.
class FrameReader
{
public:
    void feed(std::string_view bytes);
    // The next whole frame, or nothing until more bytes arrive.
    Result<std::optional<Frame>> next();
    // Bytes received and not yet returned as frames.
    std::size_t pendingBytes() const { return m_buffer.size() - m_offset; }

private:
    std::string m_buffer;
    std::size_t m_offset = 0;
};

// What one rank is: its process (no shell: argv[0] is run as given, with argv and the
// environment added to the agent's), and the file it leaves in the job folder.
struct RankSpec
{
    int rank = 0;
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;
    std::string resultFile; // relative to the job folder; empty: the rank has no result
};

// The job as one host's agent runs it.
struct AgentSpec
{
    std::string jobDir;      // the job folder; the agent runs there and removes it at the end
    double graceS = 3;       // after TERM, the ranks' process groups get KILL
    bool serveStore = false; // listen on STORE_SOCKET in the job folder for the ranks' store
    std::vector<RankSpec> ranks;
};

// The job folder's socket through which its ranks reach the rendezvous store
// (`--rendezvous unix:JOBDIR/store.sock`).
inline constexpr std::string_view kStoreSocketName = "store.sock";

std::string encodeSpec(const AgentSpec &spec);
Result<AgentSpec> decodeSpec(std::string_view payload);

// The rendezvous store's operations (Gloo's Store: set, get, wait). The launcher holds the
// keys; a get or a wait is answered once its keys exist. The asker bounds its own wait.
struct StoreRequest
{
    enum class Op : std::uint8_t { Set = 1, Get = 2, Wait = 3 };
    std::uint32_t id = 0; // chosen by the asker, echoed in the reply
    Op op = Op::Get;
    std::vector<std::string> keys; // Set, Get: one key
    std::string value;             // Set
};

struct StoreReply
{
    std::uint32_t id = 0;
    bool ok = true;
    std::string value; // Get: the value; !ok: why
};

std::string encodeStoreRequest(const StoreRequest &request);
Result<StoreRequest> decodeStoreRequest(std::string_view payload);
std::string encodeStoreReply(const StoreReply &reply);
Result<StoreReply> decodeStoreReply(std::string_view payload);

} // namespace hetplan::agent
