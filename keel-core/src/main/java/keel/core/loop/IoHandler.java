package keel.core.loop;

/**
 * Receives readiness events for one channel registered on an {@link EventLoop}.
 *
 * <p>Called on the loop thread only; it must not block and must handle its own exceptions (the loop
 * logs and closes the channel of a handler that throws).
 */
@FunctionalInterface
public interface IoHandler {
    /**
     * The channel is ready for {@code readyOps} ({@link Poller#READ}, {@link Poller#WRITE},
     * {@link Poller#CONNECT}): the operations it was polled for that its interest still holds (never 0).
     */
    void onReady(int readyOps);

    /** Called on the loop thread when the loop closed this channel: at shutdown, or after {@link #onReady} threw. */
    default void onClosedByLoop() {
    }
}
