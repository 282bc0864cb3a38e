package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every {@code ./ortho} command in the code blocks of {@code README.md} and
 * {@code examples/README.md} runs as written from the repository root (a newcomer's clean clone
 * has nothing else), through the built {@code ortho.jar}: exit code 0 ({@code ./ortho bogus}: 2),
 * and each output its comment shows ({@code # EXEC @add / result[0]: i32=5}, or a comment line
 * under the command) appears on standard output. Skipped, by rule: commands with a placeholder
 * ({@code ...}), background servers ({@code &}) and the commands that need one
 * ({@code remote://…}), and the runtime driver install that needs {@code itest}'s jar.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class ReadmeCommandsIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Output fragments in comments: IREE's value text, EXEC/result lines, check and compare summaries. */
    private static final Pattern OUTPUT = Pattern.compile(
            "EXEC @\\S+|result\\[\\d+\\]: \\S.*|[0-9x]*[a-z]+[0-9]+=.+|\\[SUCCESS\\].*|\\d+ passed, \\d+ failed");

    record Command(String file, int line, String text, List<String> outputs) {
    }

    /** The {@code ./ortho} commands of {@code file}'s fenced blocks (continuations joined). */
    static List<Command> commands(String file) throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve(file));
        List<Command> commands = new ArrayList<>();
        boolean inBlock = false;
        boolean shellBlock = false;
        Command last = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                inBlock = !inBlock;
                shellBlock = inBlock && line.strip().equals("```");
                last = null;
                continue;
            }
            if (!inBlock || !shellBlock) {
                continue;
            }
            if (line.strip().startsWith("#") && last != null) { // an output line under the command
                addOutput(last.outputs(), line.strip().substring(1).strip());
                continue;
            }
            int first = i;
            StringBuilder text = new StringBuilder();
            String comment = "";
            while (true) {
                String part = lines.get(i);
                int hash = commentStart(part);
                if (hash >= 0) {
                    comment = part.substring(hash + 1).strip();
                    part = part.substring(0, hash);
                }
                String trimmed = part.stripTrailing();
                if (trimmed.endsWith("\\") && i + 1 < lines.size()) {
                    text.append(trimmed, 0, trimmed.length() - 1).append(' ');
                    i++;
                    continue;
                }
                text.append(trimmed);
                break;
            }
            String command = text.toString().strip().replaceAll(" +", " ");
            last = null;
            if (!command.startsWith("./ortho") && !command.contains("| ./ortho")) {
                continue;
            }
            if (command.contains("...") || command.contains("…") || command.endsWith("&")
                    || command.contains("remote://") || command.contains("$PWD/itest")) {
                continue;
            }
            List<String> outputs = new ArrayList<>();
            for (String piece : comment.split(" / ")) {
                addOutput(outputs, piece.strip());
            }
            last = new Command(file, first + 1, command, outputs);
            commands.add(last);
        }
        return commands;
    }

    private static void addOutput(List<String> outputs, String piece) {
        if (OUTPUT.matcher(piece).matches()) {
            outputs.add(piece);
        }
    }

    /** The index of a {@code #} that starts a comment (after whitespace, outside quotes), or -1. */
    private static int commentStart(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '#' && i > 0 && Character.isWhitespace(line.charAt(i - 1))) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void everyReadmeCommandRunsAsWritten() throws Exception {
        Path dir = Files.createTempDirectory("ortho-readme");
        Path ortho = dir.resolve("ortho");
        Files.writeString(ortho, "#!/usr/bin/env bash\nexec " + String.join(" ", quoted(OrthoJarIT.orthoCommand()))
                + " \"$@\"\n");
        Files.setPosixFilePermissions(ortho, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<Command> commands = new ArrayList<>(commands("README.md"));
        commands.addAll(commands("examples/README.md"));
        assertTrue(commands.size() >= 20, "found only " + commands.size() + " commands: " + commands);
        for (Command command : commands) {
            String script = command.text().replace("./ortho", ortho.toString());
            Path out = dir.resolve("out.txt");
            Path err = dir.resolve("err.txt");
            Process process = new ProcessBuilder("bash", "-c", script).directory(ROOT.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            String where = command.file() + ":" + command.line() + " `" + command.text() + "`";
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(where + " did not exit");
            }
            String stdout = Files.readString(out);
            int expectedExit = command.text().equals("./ortho bogus") ? 2 : 0;
            assertEquals(expectedExit, process.exitValue(), where + "\n" + stdout + Files.readString(err));
            for (String output : command.outputs()) {
                assertTrue(stdout.contains(output), where + " should print '" + output + "':\n" + stdout);
            }
        }
    }

    private static List<String> quoted(List<String> words) {
        return words.stream().map(w -> "'" + w.replace("'", "'\\''") + "'").toList();
    }
}
