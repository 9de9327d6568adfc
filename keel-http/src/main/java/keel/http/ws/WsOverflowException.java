package keel.http.ws;

import java.io.IOException;

/**
 * A send was refused because the session already queues {@code websocket.max-queued-output} bytes
 * (the peer reads slower than the application sends). Nothing of the message was sent and the
 * session stays open: wait for {@link WsListener#onWritabilityChanged} or drop the message.
 */
public final class WsOverflowException extends IOException {
    public WsOverflowException(long queued, long limit) {
        super("send refused: " + queued + " bytes already queued, the bound is " + limit
                + " (websocket.max-queued-output); the peer reads too slowly");
    }
}
