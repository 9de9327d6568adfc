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
    /**
     * {@code key}'s channel is ready for {@code readyOps}: the operations it was selected for that
     * its interest set still holds (never 0).
     */
    void onReady(SelectionKey key, int readyOps);

    /** Called on the loop thread when the loop closed this channel: at shutdown, or after {@link #onReady} threw. */
    default void onClosedByLoop() {
    }
}
