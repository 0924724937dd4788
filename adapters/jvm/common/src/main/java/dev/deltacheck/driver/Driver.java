package dev.deltacheck.driver;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * deltacheck driver protocol v1 (docs/PROTOCOL.md), shared by every JVM driver: one JSON object per
 * line on stdin and stdout. stdout carries protocol lines only: System.out is pointed at stderr
 * before any library class loads, so whatever a library prints goes there.
 */
public final class Driver {
    /** What a driver implements: one fixture request in, one canonical result (CONTRACT.md 3) out. */
    public interface Implementation {
        Map<String, Object> run(Map<String, Object> request) throws Exception;
    }

    /** Thrown by an implementation that cannot run a request at all: the reply is `skipped`. */
    public static final class CannotRun extends RuntimeException {
        public CannotRun(String reason) {
            super(reason);
        }
    }

    /** One mode of a driver, named by its first argument (chat, responses): the adapter it serves as, and how. */
    public static final class Mode {
        final String argument;
        final String defaultName;
        final String protocol;
        final List<String> capabilities;
        final String codePath;
        final Map<String, String> capabilityNotes;
        final Implementation implementation;

        public Mode(String argument, String defaultName, String protocol, List<String> capabilities, String codePath,
                    Map<String, String> capabilityNotes, Implementation implementation) {
            this.argument = argument;
            this.defaultName = defaultName;
            this.protocol = protocol;
            this.capabilities = capabilities;
            this.codePath = codePath;
            this.capabilityNotes = capabilityNotes;
            this.implementation = implementation;
        }
    }

    /** Frames kept for the exception, and for each of its causes, in a traceback (see stableTrace). */
    private static final int TRACE_FRAMES = 8;
    private static final int CAUSE_FRAMES = 2;

    private static final PrintStream PROTOCOL_OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

    static {
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    }

    private Driver() {
    }

    /**
     * Points System.out at stderr. A driver's main calls it before touching its library: a library
     * that keeps the System.out it found at start-up (kotlin-logging does) would write to the protocol
     * channel otherwise. Loading this class does it; the call only makes sure the class is loaded.
     */
    public static void claimStdout() {
    }

    /**
     * Serves the mode the first argument names (the manifest's args) for the library at the version loaded;
     * an argument no mode has is a usage error (exit status 2). A mode's capability_notes are the library's
     * own reasons only: the harness adds those the protocol itself gives (a Chat Completions stream has no item ids).
     */
    @SuppressWarnings("unchecked")
    public static void serve(String[] args, String library, String version, Mode... modes) throws Exception {
        Mode mode = chosen(args, modes);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) continue;
            Map<String, Object> message;
            try {
                message = (Map<String, Object>) Json.parse(line);
            } catch (RuntimeException e) {
                System.err.println("driver: ignoring a line that is not a JSON object: "
                        + line.substring(0, Math.min(200, line.length())));
                continue;
            }
            Object cmd = message.get("cmd");
            if ("start".equals(cmd)) {
                if (!Long.valueOf(1).equals(message.get("version"))) {
                    System.err.println("driver: protocol version " + message.get("version") + " is not supported (only 1)");
                    System.exit(2);
                }
                Map<String, Object> hello = new LinkedHashMap<>();
                hello.put("cmd", "start");
                hello.put("version", 1);
                hello.put("implementation", describe(mode, library, version));
                write(hello);
            } else if ("run".equals(cmd)) {
                write(reply(message.get("seq"), (Map<String, Object>) message.get("request"), mode));
            } else if ("stop".equals(cmd)) {
                System.exit(0);
            } else {
                System.err.println("driver: ignoring unknown command " + cmd);
            }
        }
        System.exit(0);
    }

    private static Map<String, Object> describe(Mode mode, String library, String version) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", adapterName(mode));
        out.put("library", library);
        out.put("version", version);
        out.put("language", "java");
        out.put("protocols", List.of(mode.protocol));
        out.put("capabilities", sorted(mode.capabilities));
        out.put("code_path", mode.codePath);
        if (!mode.capabilityNotes.isEmpty()) out.put("capability_notes", new TreeMap<>(mode.capabilityNotes));
        return out;
    }

    private static List<String> sorted(List<String> items) {
        List<String> copy = new ArrayList<>(items);
        Collections.sort(copy);
        return copy;
    }

    /** The reply to one run request: the implementation's result, its exception, or why it cannot run. */
    private static Map<String, Object> reply(Object seq, Map<String, Object> request, Mode mode) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("seq", seq);
        String protocol = request == null ? null : (String) request.get("protocol");
        if (request == null || !mode.protocol.equals(protocol)) {
            reply.put("skipped", Map.of("reason", adapterName(mode) + " does not speak " + protocol));
            return reply;
        }
        try {
            Map<String, Object> result = mode.implementation.run(request);
            Json.write(result);  // a value that cannot be written is the implementation's error, not a broken line
            reply.put("result", result);
        } catch (CannotRun e) {
            reply.put("skipped", Map.of("reason", String.valueOf(e.getMessage())));
        } catch (Throwable e) {
            Map<String, Object> errored = new LinkedHashMap<>();
            errored.put("message", oneLine(e));
            errored.put("traceback", stableTrace(e));
            reply.put("errored", errored);
        }
        return reply;
    }

    /** The mode `args` names; the usage and exit status 2 when it names none. */
    private static Mode chosen(String[] args, Mode... modes) {
        List<String> arguments = new ArrayList<>();
        for (Mode mode : modes) {
            if (args.length > 0 && mode.argument.equals(args[0])) return mode;
            arguments.add(mode.argument);
        }
        System.err.println("usage: driver.jar " + String.join("|", arguments));
        System.exit(2);
        throw new IllegalStateException("unreachable: System.exit returned");
    }

    /** The manifest's adapter name (DELTACHECK_ADAPTER_NAME), else the mode's own default. */
    private static String adapterName(Mode mode) {
        String given = System.getenv("DELTACHECK_ADAPTER_NAME");
        return given == null || given.isEmpty() ? mode.defaultName : given;
    }

    /**
     * The exception and each cause with the frames nearest to where it was thrown, up to the first
     * frame of coroutine dispatch or a synthetic frame without a line number. What lies below depends
     * on whether a coroutine suspended in that run (a resumed continuation has a short stack, one
     * that ran straight through a long one), and the report must read the same on every run; a
     * cause keeps only its innermost frames, since even its ordinary frames vary that way.
     */
    private static String stableTrace(Throwable e) {
        StringBuilder out = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            out.append(t == e ? "" : "Caused by: ").append(t).append('\n');
            StackTraceElement[] frames = t.getStackTrace();
            int limit = Math.min(frames.length, t == e ? TRACE_FRAMES : CAUSE_FRAMES);
            for (int i = 0; i < limit && (i == 0 || !isDispatch(frames[i])); i++) {
                out.append("\tat ").append(frames[i]).append('\n');
            }
        }
        return out.toString();
    }

    private static boolean isDispatch(StackTraceElement frame) {
        String type = frame.getClassName();
        return type.startsWith("kotlin.coroutines.") || type.startsWith("kotlinx.coroutines.") || frame.getLineNumber() < 0;
    }

    /** `Type: message`, on one line; the innermost cause's type when the outer one only wraps it. */
    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        String text = e.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
        return text.replaceAll("\\s+", " ").trim();
    }

    private static synchronized void write(Map<String, Object> message) {
        PROTOCOL_OUT.print(Json.write(message));
        PROTOCOL_OUT.print('\n');
        PROTOCOL_OUT.flush();
    }
}
