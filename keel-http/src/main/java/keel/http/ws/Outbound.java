package keel.http.ws;

import keel.core.buffer.WriteQueue;

import java.util.ArrayDeque;
import java.util.random.RandomGenerator;

/**
 * The frames of one connection on their way out: encodes them into the channel's write queue
 * (compressing data frames first when permessage-deflate was agreed) and completes each application
 * send once its last byte has left, found by counting bytes (a send is done when the channel's count
 * of bytes written passes the end of its frame). Loop thread.
 */
final class Outbound {
    /** A send in the write queue: done once {@code endMark} bytes have been written. */
    private record InFlight(long endMark, Session.Outgoing outgoing) {
    }

    private final WriteQueue out;
    private final RandomGenerator maskKeys;
    /** Null unless permessage-deflate was agreed. */
    private final MessageDeflater deflater;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    /** Where the last frame queued ends, counted like the channel's bytes written. */
    private long encoded;

    /**
     * {@code maskKeys} is null on a server; {@code deflater} null without permessage-deflate.
     * {@code writtenSoFar} is the channel's count of bytes written now; bytes already in {@code out}
     * (a 101 answer) go first and complete no send.
     */
    Outbound(WriteQueue out, long writtenSoFar, RandomGenerator maskKeys, MessageDeflater deflater) {
        this.out = out;
        this.maskKeys = maskKeys;
        this.deflater = deflater;
        this.encoded = writtenSoFar + out.pendingBytes();
    }

    /** Bytes a frame with this payload takes on the wire from this side. */
    int frameLength(int payloadLength) {
        return FrameEncoder.frameLength(payloadLength, maskKeys != null);
    }

    /** Queues an application's frame (or Keel's answering Close); its send completes once it is written. */
    void write(Session.Outgoing outgoing) {
        int opcode = outgoing.opcode();
        byte[] payload = outgoing.payload();
        boolean compressed = deflater != null && deflater.compresses(opcode, outgoing.fin(), payload.length);
        if (compressed) payload = deflater.compress(payload, outgoing.fin());
        FrameEncoder.write(out, opcode, outgoing.fin(), compressed && opcode != FrameDecoder.CONTINUATION, payload, maskKeys);
        encoded += frameLength(payload.length);
        inFlight.addLast(new InFlight(encoded, outgoing));
    }

    /** A frame of Keel's own (pong, ping, a failing Close) that completes nothing. */
    void writeControl(int opcode, byte[] payload) {
        FrameEncoder.write(out, opcode, payload, maskKeys);
        encoded += frameLength(payload.length);
    }

    /** Completes the sends whose last byte is out ({@code written}: the channel's count); their continuations may send again. */
    void completeWritten(Session session, long written) {
        InFlight head;
        while ((head = inFlight.peekFirst()) != null && head.endMark() <= written) {
            inFlight.pollFirst();
            session.written(head.outgoing());
        }
    }

    /** Frees the compressor; the connection has closed. */
    void release() {
        if (deflater != null) deflater.release();
    }

    /** Drops what was not written; the sends it held fail with {@code cause}. */
    void clear(Session session, Throwable cause) {
        out.clear();
        InFlight head;
        while ((head = inFlight.pollFirst()) != null) session.failed(head.outgoing(), cause);
    }
}
