package keel.http.config;

/** A configuration key or value that cannot be used; the message names the key and the source. */
public final class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
        super(message);
    }
}
