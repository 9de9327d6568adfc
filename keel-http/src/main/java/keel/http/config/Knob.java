package keel.http.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a record component a configuration knob: its YAML key, its CLI flag, its default and what
 * it means. This one declaration is the whole of a knob: {@link KnobTable} reads it to give the
 * builder its default, to read the value from YAML and flags, and to write {@code --help} and the
 * reference table ({@code docs/configuration.md}); the record's factory and the builder's setter only
 * name it by its key.
 *
 * <p>A value is read according to the component's type ({@code int}, {@code long}, {@code boolean},
 * {@link java.time.Duration}, an enum, {@link java.nio.file.Path}, {@link String}, {@link java.net.URI},
 * a {@code List<String>} written comma-separated) unless {@link #as} says otherwise; see
 * {@link ConfigValues} for the words.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Knob {
    /** The default as a {@code bin/keel} word ({@code 10s}, {@code 8KiB}; {@code ""}: not set); {@value #PROCESSORS}: one per processor. */
    String value();

    /** The dotted YAML key ({@code server.port}). */
    String key();

    /** The CLI flag ({@code --port}). */
    String flag();

    /** What the knob means, in one line of the reference (Markdown {@code `code`} allowed). */
    String doc();

    /** The least integer or size accepted. */
    long min() default 0;

    /** The largest integer or size accepted. */
    long max() default Integer.MAX_VALUE;

    /** How the words are read where the component's type alone does not say. */
    As as() default As.TYPE;

    /** The largest size a knob takes: 2 GiB less 16 bytes (what a byte array holds). */
    long MAX_SIZE = Integer.MAX_VALUE - 16;

    /** The default word that stands for the number of available processors. */
    String PROCESSORS = "processors";

    /** How a knob's words are read. */
    enum As {
        /** According to the component's type. */
        TYPE,
        /** A byte count: {@code 4096}, {@code 8KiB}, {@code 10MiB}. */
        SIZE,
        /** A duration, or {@code none} for no deadline ({@link java.time.Duration#ZERO}). */
        DEADLINE,
        /** Text taken as written, not trimmed (a password). */
        VERBATIM,
        /** Text taken as written; empty: not set (null). */
        VERBATIM_OR_UNSET,
        /** TLS protocol versions, comma-separated; nothing below TLS 1.2. */
        TLS_PROTOCOLS,
        /** Network addresses, comma-separated: {@code host:port} or {@code host} each. */
        HOST_PORTS
    }
}
