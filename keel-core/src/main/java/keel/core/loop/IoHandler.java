package keel.core.loop;

import java.nio.channels.SelectionKey;

/**
 * Receives readiness events for one channel registered on an {@link EventLoop}.
 *
 * <p>Called on the loop thread only; it must not block and must handle its own exceptions (the loop
 * logs and closes the channel of a handler that throws).
 */
@FunctionalInterface
public interface IoHandler {
    void onReady(SelectionKey key);

    /** Called on the loop thread when the loop closed this channel: at shutdown, or after {@link #onReady} threw. */
    default void onClosedByLoop() {
    }
}
