package keel.core.tls;

/** Whether a TLS server asks the client for a certificate. */
public enum ClientAuth {
    /** The server does not ask; handlers see no peer certificate. */
    NONE,
    /** The server asks; a client without a certificate still connects (and handlers see none). */
    WANT,
    /** The server asks and refuses the handshake of a client that sends no trusted certificate. */
    NEED
}
