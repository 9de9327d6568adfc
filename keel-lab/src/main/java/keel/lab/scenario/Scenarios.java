package keel.lab.scenario;

import keel.lab.report.ScenarioResult;

import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The scenarios by CLI word, in the order {@code bin/keel lab all} runs them. {@code modes} lives in
 * its own package and drives Gatling; it is looked up by class name, so a build without it still
 * runs the others and reports {@code modes} as not built.
 */
public final class Scenarios {
    static final String MODES_CLASS = "keel.lab.modes.ModesScenario";
    public static final List<String> NAMES = List.of("modes", "blocked-loop", "gateway", "cold-start", "close", "fan-out");
    private static final Map<String, Supplier<Scenario>> BUILT_IN = Map.of(
            "blocked-loop", BlockedLoopScenario::new,
            "gateway", GatewayScenario::new,
            "cold-start", ColdStartScenario::new,
            "close", CloseScenario::new,
            "fan-out", FanOutScenario::new);

    private Scenarios() {
    }

    /** The scenario called {@code name}; {@link IllegalArgumentException} for an unknown word. */
    public static Scenario create(String name) {
        if (name.equals("modes")) return byClassName(name, MODES_CLASS);
        Supplier<Scenario> scenario = BUILT_IN.get(name);
        if (scenario == null) throw new IllegalArgumentException("unknown scenario '" + name + "' (known: " + String.join(", ", NAMES) + ", all)");
        return scenario.get();
    }

    static Scenario byClassName(String name, String className) {
        try {
            return (Scenario) Class.forName(className).getConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return new NotBuilt(name, className + " is not on the classpath");
        } catch (ReflectiveOperationException | ClassCastException e) {
            Throwable cause = e instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
            return new NotBuilt(name, className + " could not be created: " + cause);
        }
    }

    /** Stands for a scenario this build lacks: its result is skipped, the reason its summary. */
    record NotBuilt(String name, String why) implements Scenario {
        @Override
        public ScenarioResult run(LabRun run) {
            return ScenarioResult.skipped(name, name, "not built: " + why);
        }
    }
}
