import Foundation
import TestThreads
import Testing

/// `compose.sh` builds once per change of the sources, then runs the built products: a change
/// to the terminal's environment alone, which SwiftPM may take for a reason to rebuild
/// everything, builds nothing.
@Suite(.onItsOwnThread) struct BuildStampTests {
  @Test func aBuildHappensOncePerChangeOfTheSources() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let package = compose.runtime.appendingPathComponent("Tally")
    let sources = package.appendingPathComponent("Sources/tally")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    try "// swift-tools-version: 6.0\n".write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    try "print(1)\n".write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let tools = try FakeSwift(in: compose.runtime)

    func list(_ environment: [String: String] = [:]) throws -> Compose.Result {
      let line = "env PATH='\(tools.directory.path):\(ProcessInfo.processInfo.environment["PATH"] ?? "")' "
        + environment.map { "\($0.key)=\($0.value) " }.joined()
        + "'\(Compose.script.path)' list --package '\(package.path)' --product tally"
      return try compose.bash(["-c", "unset BULKHEAD_HOST; " + line]).finishSynchronously()
    }

    let first = try list()
    #expect(first.status == 0 && first.output.contains("tally  counts"), "\(first)")
    #expect(tools.builds == ["build -c release --package-path \(package.path) --product tally"], "\(tools.calls)")
    let again = try list(["TERM": "dumb", "SOME_SETTING": "changed"])
    #expect(again.status == 0 && again.output.contains("tally  counts"), "\(again)")
    #expect(tools.builds.count == 1, "a second run with only the environment changed built again: \(tools.calls)")

    try "print(2)\n".write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    #expect(try list().status == 0)
    #expect(tools.builds.count == 2, "a change of the sources did not build: \(tools.calls)")
  }
}

/// A `swift` that answers `build` by writing a host that lists one app, and records its calls.
private struct FakeSwift {
  let directory: URL
  let log: URL

  init(in parent: URL) throws {
    directory = parent.appendingPathComponent("fake-bin")
    log = parent.appendingPathComponent("swift-calls.log")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    let script = """
      #!/bin/bash
      echo "$*" >> '\(log.path)'
      while [ $# -gt 0 ]; do
        case "$1" in
          --package-path) package="$2"; shift 2 ;;
          --product) product="$2"; shift 2 ;;
          --show-bin-path) echo "$package/.build/release"; exit 0 ;;
          *) shift ;;
        esac
      done
      mkdir -p "$package/.build/release"
      printf '#!/bin/bash\\ncase "$1" in --bulkhead-host) echo "bulkhead host" ;; --list) echo "tally  counts" ;; esac\\n' > "$package/.build/release/$product"
      chmod +x "$package/.build/release/$product"
      """
    let swift = directory.appendingPathComponent("swift")
    try script.write(to: swift, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
  }

  var calls: [String] {
    ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  var builds: [String] { calls.filter { $0.hasPrefix("build") && !$0.contains("--show-bin-path") } }
}
