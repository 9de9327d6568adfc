package keel.http.server;

import keel.http.server.exchange.ExchangeObserver;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The exchanges' reasons reach a server's observer under the same names. */
class ServerObserverTest {
    @Test
    void everyReasonOfTheExchangesIsATimeoutOrADropOfTheSameName() {
        List<String> heard = new ArrayList<>();
        ServerObserver observer = new ServerObserver() {
            @Override
            public void onTimeout(Timeout reason) {
                heard.add(reason.name());
            }

            @Override
            public void onDropped(Drop reason) {
                heard.add(reason.name());
            }
        };
        for (ExchangeObserver.Expiry reason : ExchangeObserver.Expiry.values()) observer.onExpired(reason);
        for (ExchangeObserver.Cut reason : ExchangeObserver.Cut.values()) observer.onCut(reason);

        assertThat(heard).containsExactlyElementsOf(Stream.concat(Arrays.stream(ExchangeObserver.Expiry.values()),
                Arrays.stream(ExchangeObserver.Cut.values())).map(Enum::name).toList());
    }
}
