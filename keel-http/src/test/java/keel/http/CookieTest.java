package keel.http;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CookieTest {
    private static Request request(String... cookieFields) {
        Headers.Builder headers = new Headers.Builder().add("Host", "h");
        for (String field : cookieFields) headers.add("Cookie", field);
        return new Request("GET", "/", true, true, headers.build(), new byte[0]);
    }

    @Test
    void readsPairsAcrossFieldsWithQuotesAndWhitespace() {
        Request request = request("a=1;b=\"two\" ;  c = 3", "d=; e=x=y");
        assertThat(request.cookies()).containsExactly(Map.entry("a", "1"), Map.entry("b", "two"), Map.entry("c", "3"),
                Map.entry("d", ""), Map.entry("e", "x=y"));
        assertThat(request.cookie("b")).contains("two");
        assertThat(request.cookie("z")).isEmpty();
    }

    @Test
    void skipsMalformedPairsAndKeepsTheFirstOfARepeatedName() {
        Request request = request("novalue; =nameless; ;; ok=1; ok=2", "ok=3; q=\"");
        assertThat(request.cookies()).containsExactly(Map.entry("ok", "1"), Map.entry("q", "\""));
    }

    @Test
    void cookiesAreParsedOnceAndCannotBeChanged() {
        Request request = request("a=1");
        assertThat(request.cookies()).isSameAs(request.cookies());
        assertThatThrownBy(() -> request.cookies().put("b", "2")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(request().cookies()).isEmpty();
        assertThat(request().cookie("a")).isEqualTo(Optional.empty());
    }

    @Test
    void writesEveryAttribute() {
        Cookie cookie = Cookie.builder("session", "abc123").path("/app").domain("example.com").maxAge(Duration.ofHours(1))
                .secure(true).httpOnly(true).sameSite(Cookie.SameSite.NONE).build();
        assertThat(cookie.headerValue())
                .isEqualTo("session=abc123; Path=/app; Domain=example.com; Max-Age=3600; Secure; HttpOnly; SameSite=None");
        assertThat(Cookie.builder("a", "\"q\"").sameSite(Cookie.SameSite.STRICT).build().headerValue()).isEqualTo("a=\"q\"; SameSite=Strict");
        assertThat(Cookie.builder("gone", "").maxAge(Duration.ZERO).sameSite(Cookie.SameSite.LAX).build().headerValue())
                .isEqualTo("gone=; Max-Age=0; SameSite=Lax");
    }

    @Test
    void refusesWhatRfc6265DoesNotAllow() {
        assertThatThrownBy(() -> Cookie.builder("", "v").build()).hasMessage("empty cookie name");
        for (String name : new String[] {"a b", "a=b", "a;b", "a\u00e9", "(a)"}) {
            assertThatThrownBy(() -> Cookie.builder(name, "v").build()).as(name).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("in cookie name");
        }
        for (String value : new String[] {"a b", "a;b", "a,b", "a\\b", "\"", "a\"", "\"a\"b\"", "a\r\nSet-Cookie: x=1", "\u00e9"}) {
            assertThatThrownBy(() -> Cookie.builder("n", value).build()).as(value).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("in cookie value").hasMessageNotContaining("\n");
        }
        assertThatThrownBy(() -> Cookie.builder("n", "v").path("/a;Secure").build()).hasMessageContaining("0x3b in cookie path");
        assertThatThrownBy(() -> Cookie.builder("n", "v").domain("x\u0001.com").build()).hasMessageContaining("0x01 in cookie domain");
        assertThatThrownBy(() -> Cookie.builder("n", "v").maxAge(Duration.ofSeconds(-1)).build()).hasMessageContaining("maxAge");
        assertThatThrownBy(() -> Cookie.builder("n", "v").maxAge(Duration.ofMillis(1500)).build()).hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> Cookie.builder("n", "v").sameSite(Cookie.SameSite.NONE).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("SameSite=None requires secure(true)");
    }

    @Test
    void eachCookieIsAFieldOfItsOwn() {
        Response response = Response.ok("x").cookie(Cookie.builder("a", "1").build()).cookie(Cookie.builder("b", "2").path("/").build());
        assertThat(response.headers().all("Set-Cookie")).containsExactly("a=1", "b=2; Path=/");
    }
}
