// The frames between launcher, agent and ranks (agent_protocol.h; docs/launcher.md,
// "The host agent"). Integers are little-endian; strings are a uint32 length and the bytes.
#include "runtime/agent/agent_protocol.h"

#include <cstring>

namespace hetplan::agent {

namespace {

void putU32(std::string &out, std::uint32_t value)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(char((value >> (8 * i)) & 0xffu));
}

void putString(std::string &out, std::string_view text)
{
    putU32(out, std::uint32_t(text.size()));
    out.append(text);
}

std::uint32_t loadU32(const char *bytes)
{
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i)
        value |= std::uint32_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
    return value;
}

// Reads what put* wrote; any read past the end makes the whole payload invalid.
class Cursor
{
public:
    explicit Cursor(std::string_view bytes)
        : m_bytes(bytes)
    {}
    bool failed() const { return m_failed; }
    bool atEnd() const { return m_offset == m_bytes.size(); }

    std::uint32_t u32()
    {
        if (m_failed || m_bytes.size() - m_offset < 4) {
            m_failed = true;
            return 0;
        }
        const std::uint32_t value = loadU32(m_bytes.data() + m_offset);
        m_offset += 4;
        return value;
    }
    std::uint8_t u8()
    {
        if (m_failed || m_offset >= m_bytes.size()) {
            m_failed = true;
            return 0;
        }
        return std::uint8_t(m_bytes[m_offset++]);
    }
    std::string string()
    {
        const std::uint32_t length = u32();
        if (m_failed || m_bytes.size() - m_offset < length) {
            m_failed = true;
            return {};
        }
        std::string text(m_bytes.substr(m_offset, length));
        m_offset += length;
        return text;
    }

private:
    std::string_view m_bytes;
    std::size_t m_offset = 0;
    bool m_failed = false;
};

bool knownKind(std::uint8_t kind)
{
    return (kind >= std::uint8_t(FrameKind::Spec) && kind <= std::uint8_t(FrameKind::Heartbeat))
           || (kind >= std::uint8_t(FrameKind::Ready) && kind <= std::uint8_t(FrameKind::Finished));
}

Error malformed(const std::string &what)
{
    return Error{ErrorKind::Internal, "malformed " + what + " from the host agent's channel"};
}

} // namespace

std::string encodeFrame(const Frame &frame)
{
    std::string out;
    out.reserve(kFrameHeaderBytes + frame.payload.size());
    out.push_back(char(frame.kind));
    putU32(out, std::uint32_t(frame.rank));
    putString(out, frame.payload);
    return out;
}

void FrameReader::feed(std::string_view bytes)
{
    if (m_offset > 0 && m_offset == m_buffer.size()) {
        m_buffer.clear();
        m_offset = 0;
    }
    m_buffer.append(bytes);
}

Result<std::optional<Frame>> FrameReader::next()
{
    if (pendingBytes() < kFrameHeaderBytes)
        return std::optional<Frame>();
    const char *header = m_buffer.data() + m_offset;
    const auto kind = std::uint8_t(header[0]);
    const std::uint32_t length = loadU32(header + 5);
    if (!knownKind(kind))
        return Error{ErrorKind::Internal,
                     "unknown frame kind " + std::to_string(kind) + " on the host agent's channel"};
    if (length > kMaxFramePayloadBytes)
        return Error{ErrorKind::Internal, "a frame of " + std::to_string(length)
                                              + " bytes on the host agent's channel (at most "
                                              + std::to_string(kMaxFramePayloadBytes) + ")"};
    if (pendingBytes() < kFrameHeaderBytes + length)
        return std::optional<Frame>();
    Frame frame;
    frame.kind = FrameKind(kind);
    frame.rank = std::int32_t(loadU32(header + 1));
    frame.payload.assign(header + kFrameHeaderBytes, length);
    m_offset += kFrameHeaderBytes + length;
    // Keep the buffer from growing with what was already read.
    if (m_offset > (std::size_t(1) << 20) && m_offset * 2 > m_buffer.size()) {
        m_buffer.erase(0, m_offset);
        m_offset = 0;
    }
    return std::optional<Frame>(std::move(frame));
}

std::string encodeSpec(const AgentSpec &spec)
{
    std::string out;
    putString(out, spec.jobDir);
    putU32(out, std::uint32_t(spec.graceS * 1000));
    out.push_back(char(spec.serveStore ? 1 : 0));
    putU32(out, std::uint32_t(spec.ranks.size()));
    for (const RankSpec &rank : spec.ranks) {
        putU32(out, std::uint32_t(rank.rank));
        putU32(out, std::uint32_t(rank.argv.size()));
        for (const std::string &arg : rank.argv)
            putString(out, arg);
        putU32(out, std::uint32_t(rank.env.size()));
        for (const auto &[name, value] : rank.env) {
            putString(out, name);
            putString(out, value);
        }
        putString(out, rank.resultFile);
    }
    return out;
}

Result<AgentSpec> decodeSpec(std::string_view payload)
{
    Cursor in(payload);
    AgentSpec spec;
    spec.jobDir = in.string();
    spec.graceS = in.u32() / 1000.0;
    spec.serveStore = in.u8() != 0;
    const std::uint32_t ranks = in.u32();
    for (std::uint32_t r = 0; r < ranks && !in.failed(); ++r) {
        RankSpec rank;
        rank.rank = int(in.u32());
        const std::uint32_t args = in.u32();
        for (std::uint32_t a = 0; a < args && !in.failed(); ++a)
            rank.argv.push_back(in.string());
        const std::uint32_t vars = in.u32();
        for (std::uint32_t v = 0; v < vars && !in.failed(); ++v) {
            std::string name = in.string();
            rank.env[name] = in.string();
        }
        rank.resultFile = in.string();
        spec.ranks.push_back(std::move(rank));
    }
    if (in.failed() || !in.atEnd())
        return malformed("job spec");
    return spec;
}

std::string encodeStoreRequest(const StoreRequest &request)
{
    std::string out;
    putU32(out, request.id);
    out.push_back(char(request.op));
    putU32(out, std::uint32_t(request.keys.size()));
    for (const std::string &key : request.keys)
        putString(out, key);
    putString(out, request.value);
    return out;
}

Result<StoreRequest> decodeStoreRequest(std::string_view payload)
{
    Cursor in(payload);
    StoreRequest request;
    request.id = in.u32();
    const std::uint8_t op = in.u8();
    const std::uint32_t keys = in.u32();
    for (std::uint32_t k = 0; k < keys && !in.failed(); ++k)
        request.keys.push_back(in.string());
    request.value = in.string();
    if (in.failed() || !in.atEnd() || op < 1 || op > 3)
        return malformed("store request");
    request.op = StoreRequest::Op(op);
    if (request.op != StoreRequest::Op::Wait && request.keys.size() != 1)
        return malformed("store request");
    return request;
}

std::string encodeStoreReply(const StoreReply &reply)
{
    std::string out;
    putU32(out, reply.id);
    out.push_back(char(reply.ok ? 1 : 0));
    putString(out, reply.value);
    return out;
}

Result<StoreReply> decodeStoreReply(std::string_view payload)
{
    Cursor in(payload);
    StoreReply reply;
    reply.id = in.u32();
    reply.ok = in.u8() != 0;
    reply.value = in.string();
    if (in.failed() || !in.atEnd())
        return malformed("store reply");
    return reply;
}

} // namespace hetplan::agent
