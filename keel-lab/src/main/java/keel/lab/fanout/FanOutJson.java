package keel.lab.fanout;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Jackson's data binding for the fan-out routes and their mock upstream, set up at their first call
 * (this class's initialisation), not before the port opens: the mapper's date format loads the JDK's
 * locale data, about 0.1 s on one CPU, which no other route needs.
 */
final class FanOutJson {
    /** Thread-safe once made; shared by every route of the package. */
    static final ObjectMapper MAPPER = new ObjectMapper();

    private FanOutJson() {
    }
}
