package keel.http.ws;

/** What {@link FrameDecoder#decode} found in the bytes it was given. */
sealed interface Decoded {
    /** No complete message or control frame yet; read more and call again. */
    record NeedMore() implements Decoded {
    }

    /** A whole text message, reassembled from its fragments and valid UTF-8. */
    record Text(String text) implements Decoded {
    }

    /** A whole binary message, reassembled from its fragments. */
    record Binary(byte[] data) implements Decoded {
    }

    record Ping(byte[] data) implements Decoded {
    }

    record Pong(byte[] data) implements Decoded {
    }

    /** A Close frame; {@code code} is {@link WsClose#NO_STATUS} when it carried none. */
    record Close(int code, String reason) implements Decoded {
    }

    /** The peer broke the protocol or a limit: close with {@code code} (1002, 1007 or 1009). */
    record Failed(int code, String reason) implements Decoded {
    }

    NeedMore NEED_MORE = new NeedMore();
}
