package keel.amqp;

/** One dependency reported on {@code /keel/health}. Called from any thread; must answer at once. */
public interface HealthCheck {
    /** The JSON field name ({@code broker}, {@code database}). */
    String name();

    boolean isUp();

    /** A JSON object with at least {@code "state"}. */
    String json();
}
