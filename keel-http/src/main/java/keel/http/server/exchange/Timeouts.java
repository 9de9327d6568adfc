package keel.http.server.exchange;

import java.time.Duration;

/**
 * The server's {@code timeouts.*} as a connection's waits ({@link Wait}) and a request body's minimum
 * rate ({@link BodyRate}) read them.
 */
public record Timeouts(Duration headRead, Duration idle, Duration writeStall, Duration streamStall, int bodyMinRate,
                       Duration bodyRateWindow, Duration lingerDrain) {
}
