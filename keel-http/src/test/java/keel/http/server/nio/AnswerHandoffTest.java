package keel.http.server.nio;

import keel.http.Response;
import keel.http.execution.HandlerCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AnswerHandoffTest {
    private static final HandlerCall CALL = new HandlerCall((call, response) -> { });

    @Test
    void theFirstAnswerOfABurstAsksForTheTaskAndTheOnesBehindRideAlongInOrder() {
        AnswerHandoff handoff = new AnswerHandoff(17, null, null, null);
        List<Response> sent = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            Response response = Response.ok("answer " + i);
            sent.add(response);
            assertThat(handoff.add(response, i % 2 == 0 ? CALL : null))
                    .isEqualTo(i == 0 ? AnswerHandoff.Added.FIRST : AnswerHandoff.Added.BEHIND);
        }
        assertThat(handoff.take()).isEqualTo(17);
        for (int i = 0; i < 17; i++) {
            assertThat(handoff.response(i)).isSameAs(sent.get(i));
            assertThat(handoff.call(i)).isSameAs(i % 2 == 0 ? CALL : null);
        }
        assertThat(handoff.add(Response.ok("next"), null)).as("a new burst").isEqualTo(AnswerHandoff.Added.FIRST);
        assertThat(handoff.take()).isEqualTo(1);
        assertThat(new String(handoff.response(0).body(), StandardCharsets.UTF_8)).isEqualTo("next");
    }

    @Test
    void moreAnswersThanReservedPlacesIsAFaultNotAGrowingQueue() {
        AnswerHandoff handoff = new AnswerHandoff(2, null, null, null);
        handoff.add(Response.ok("a"), null);
        handoff.add(Response.ok("b"), null);
        assertThatThrownBy(() -> handoff.add(Response.ok("c"), null)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void onceTheLoopRefusedABurstItsAnswersAndEveryLaterOneAreRefused() {
        AnswerHandoff handoff = new AnswerHandoff(4, null, null, null);
        Response first = Response.ok("first");
        Response second = Response.ok("second");
        handoff.add(first, null);
        handoff.add(second, null);
        assertThat(handoff.close()).containsExactly(first, second);
        assertThat(handoff.add(Response.ok("late"), null)).isEqualTo(AnswerHandoff.Added.REFUSED);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void answersAddedWhileTheLoopTakesAreNeitherLostNorReordered() throws Exception {
        int answers = 200_000;
        int capacity = 17;
        AnswerHandoff handoff = new AnswerHandoff(capacity, null, null, null);
        Semaphore places = new Semaphore(capacity);
        AtomicInteger firsts = new AtomicInteger();
        Response[] sent = new Response[answers];
        for (int i = 0; i < answers; i++) sent[i] = Response.ok(Integer.toString(i));
        Thread producer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < answers; i++) {
                places.acquireUninterruptibly(); // a reserved place per answer, as a connection holds
                if (handoff.add(sent[i], null) == AnswerHandoff.Added.FIRST) firsts.incrementAndGet();
            }
        });
        int received = 0;
        int takes = 0;
        while (received < answers) {
            if (firsts.get() == takes) {
                Thread.onSpinWait();
                continue;
            }
            takes++; // the task a FIRST queued
            int count = handoff.take();
            assertThat(count).isPositive();
            for (int i = 0; i < count; i++) assertThat(handoff.response(i)).isSameAs(sent[received++]);
            places.release(count);
        }
        producer.join();
        assertThat(firsts.get()).as("one task per burst, never more tasks than answers").isEqualTo(takes).isLessThanOrEqualTo(answers);
    }
}
