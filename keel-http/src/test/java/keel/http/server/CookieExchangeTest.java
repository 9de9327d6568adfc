package keel.http.server;

import keel.http.Cookie;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Cookies over real sockets: the {@code Cookie} fields a client sends, the {@code Set-Cookie} fields a handler adds. */
class CookieExchangeTest {
    private static Router router() {
        return new Router()
                .get("/read", request -> Response.ok(request.cookies() + " theme=" + request.cookie("theme").orElse("-")))
                .get("/login", request -> Response.status(204)
                        .cookie(Cookie.builder("session", "s3cr3t").path("/").domain("127.0.0.1").maxAge(Duration.ofDays(1))
                                .secure(true).httpOnly(true).sameSite(Cookie.SameSite.STRICT).build())
                        .cookie(Cookie.builder("theme", "dark").path("/").build()));
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void readsSeveralQuotedMalformedAndRepeatedCookieFields(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /read HTTP/1.1\r\nHost: h\r\nCookie: a=1; theme=\"dark\"\r\nCookie: broken;a=2 ;  b = 3 \r\n\r\n");
            assertThat(client.read().body()).isEqualTo("{a=1, theme=dark, b=3} theme=dark");
            client.send("GET /read HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(client.read().body()).isEqualTo("{} theme=-");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void writesOneSetCookieLinePerCookie(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /login HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
            List<String> setCookies = Arrays.stream(client.readToEnd().split("\r\n")).filter(line -> line.startsWith("Set-Cookie:")).toList();
            assertThat(setCookies).containsExactly(
                    "Set-Cookie: session=s3cr3t; Path=/; Domain=127.0.0.1; Max-Age=86400; Secure; HttpOnly; SameSite=Strict",
                    "Set-Cookie: theme=dark; Path=/");
        }
    }

    @Test
    void theJdkClientSendsAndReceivesCookies() throws Exception {
        try (TestServer server = TestServer.start(router()); var client = server.httpClientBuilder().build()) {
            HttpResponse<String> read = client.send(HttpRequest.newBuilder(server.uri("/read"))
                    .header("Cookie", "theme=light; x=1").header("Cookie", "y=2").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(read.body()).isEqualTo("{theme=light, x=1, y=2} theme=light");
            HttpResponse<Void> login = client.send(HttpRequest.newBuilder(server.uri("/login")).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(login.headers().allValues("set-cookie")).hasSize(2).last().isEqualTo("theme=dark; Path=/");
        }
    }

    @Test
    void curlKeepsTheCookiesItIsGivenAndSendsThemBack(@TempDir Path directory) throws Exception {
        Path jar = directory.resolve("cookies.txt");
        try (TestServer server = TestServer.start(router())) {
            Curl.Result login = Curl.run(List.of("-c", jar.toString(), server.uri("/login").toString()));
            assertThat(login.exitCode()).as(login.output()).isZero();
            assertThat(Files.readString(jar)).contains("127.0.0.1\tFALSE\t/\tFALSE\t0\ttheme\tdark\n")
                    .containsPattern("#HttpOnly_127.0.0.1\tFALSE\t/\tTRUE\t\\d+\tsession\ts3cr3t\n");
            Curl.Result read = Curl.run(List.of("-b", jar.toString(), "-b", "extra=\"q\"", server.uri("/read").toString()));
            // Whether curl sends the Secure cookie over plain http to 127.0.0.1 depends on its version.
            assertThat(read.output()).contains("theme=dark, extra=q}").endsWith(" theme=dark");
        }
    }
}
