module hello {
    requires keel.http;
}
