package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsoleTest {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final List<String> executed = new ArrayList<>();

    private final Console console = new Console(new Console.Interpreter() {
        @Override
        public Object execute(String line) {
            executed.add(line);
            return switch (line) {
                case "quiet" -> null;
                case "empty" -> "";
                case "missing" -> throw new StatusException(StatusCode.NOT_FOUND, "no such thing");
                case "broken" -> throw new IllegalStateException("boom");
                case "wrapped" -> throw new java.lang.reflect.UndeclaredThrowableException(
                        new java.lang.reflect.InvocationTargetException(
                                new StatusException(StatusCode.OUT_OF_RANGE, "index 9")));
                case "start file:/nonexistent.jar" -> // Gogo's Basic.start returns its failures
                        "java.io.FileNotFoundException: /nonexistent.jar (No such file or directory)\n";
                case "start nosuchbundle", "felix:start nosuchbundle" ->
                        "java.net.MalformedURLException: no protocol: nosuchbundle\n";
                case "start 0x" -> "Unable to parse id '0x'.\n";
                case "echo java.io.IOException: fine" -> "java.io.IOException: fine";
                case "hal:dump" -> throw new IllegalArgumentException("Cannot coerce dump() to any of [(String)]");
                case "nosuchcommand" -> throw new CommandNotFoundException("Command not found: nosuchcommand");
                default -> "result of " + line;
            };
        }

        @Override
        public CharSequence format(Object result) {
            return "<" + result + ">";
        }
    }, new PrintStream(outBytes, true, StandardCharsets.UTF_8),
            new PrintStream(errBytes, true, StandardCharsets.UTF_8));

    private int run(String input, boolean interactive) throws Exception {
        return console.run(new BufferedReader(new StringReader(input)), interactive, "banner");
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void pipedInputPrintsOnlyResultsAndExitsZero() throws Exception {
        assertEquals(0, run("hal:drivers\nquiet\n", false));
        assertEquals("<result of hal:drivers>\n", out());
        assertEquals(List.of("hal:drivers", "quiet"), executed);
    }

    @Test
    void resultsThatRenderEmptyPrintNothing() throws Exception {
        Console bare = new Console(new Console.Interpreter() {
            @Override
            public Object execute(String line) {
                return java.util.List.of();
            }

            @Override
            public CharSequence format(Object result) {
                return "";
            }
        }, new PrintStream(outBytes, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, bare.run(new BufferedReader(new StringReader("start x\n")), false, "b"));
        assertEquals("", out());
    }

    @Test
    void blankLinesAndCommentsAreSkipped() throws Exception {
        assertEquals(0, run("\n   \n# a comment\n  lb  \n", false));
        assertEquals(List.of("lb"), executed);
    }

    @Test
    void aFailingCommandIsReportedAndMakesPipedInputExitOne() throws Exception {
        assertEquals(1, run("missing\nbroken\nafter\n", false));
        assertEquals("NOT_FOUND; no such thing\nFAILED_PRECONDITION; boom\n", err());
        assertEquals("<result of after>\n", out(), "later commands still run");
    }

    @Test
    void reflectiveWrappersAreUnwrappedToTheCommandsOwnError() throws Exception {
        assertEquals(1, run("wrapped\n", false));
        assertEquals("OUT_OF_RANGE; index 9\n", err());
    }

    /** Issue 15: Gogo's lifecycle commands return their failures as text; they read as statuses and fail. */
    @Test
    void gogoFailureTextsAreStatusesAndMakePipedInputExitOne() throws Exception {
        assertEquals(1, run("start file:/nonexistent.jar\n", false));
        assertEquals("NOT_FOUND; /nonexistent.jar (No such file or directory); start file:/nonexistent.jar\n", err());
        assertEquals("", out());
        errBytes.reset();
        assertEquals(1, run("start nosuchbundle\nfelix:start nosuchbundle\nstart 0x\n", false));
        assertEquals("INVALID_ARGUMENT; no protocol: nosuchbundle; start nosuchbundle\n"
                + "INVALID_ARGUMENT; no protocol: nosuchbundle; felix:start nosuchbundle\n"
                + "INVALID_ARGUMENT; Unable to parse id '0x'.; start 0x\n", err());
    }

    @Test
    void onlyLifecycleCommandsAreReadForFailureText() throws Exception {
        assertEquals(0, run("echo java.io.IOException: fine\n", false));
        assertEquals("<java.io.IOException: fine>\n", out());
    }

    /** Issue 15: Gogo's coercion error and unknown commands read as statuses. */
    @Test
    void gogoDispatchErrorsAreStatuses() throws Exception {
        assertEquals(1, run("hal:dump\nnosuchcommand\n", false));
        assertEquals("INVALID_ARGUMENT; wrong arguments: cannot coerce dump() to any of [(String)] (missing or extra"
                + " arguments, or a bundle that is not installed)\n"
                + "NOT_FOUND; command not found: nosuchcommand (type 'help' to list commands)\n", err());
    }

    /** Same simple name as Gogo's, which the console recognizes without depending on Gogo's runtime. */
    private static final class CommandNotFoundException extends IllegalArgumentException {
        CommandNotFoundException(String message) {
            super(message);
        }
    }

    @Test
    void exitStopsReading() throws Exception {
        assertEquals(0, run("one\nexit\ntwo\n", false));
        assertEquals(List.of("one"), executed);
    }

    @Test
    void interactiveModePromptsAndAlwaysExitsZero() throws Exception {
        assertEquals(0, run("missing\n", true));
        assertEquals("banner\ng! g! \n", out());
        assertTrue(err().contains("NOT_FOUND"));
    }
}
