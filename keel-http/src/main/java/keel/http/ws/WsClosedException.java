package keel.http.ws;

import java.io.IOException;

/** A send or close could not complete because the session is closing or closed. */
public final class WsClosedException extends IOException {
    private final int code;

    public WsClosedException(int code, String message) {
        super(message);
        this.code = code;
    }

    /** The close code of the session when known ({@link WsClose#ABNORMAL} otherwise). */
    public int code() {
        return code;
    }
}
