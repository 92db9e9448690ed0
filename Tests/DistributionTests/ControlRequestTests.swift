@testable import BulkheadDistribution
@testable import BulkheadTools
import TestThreads
import Testing
import Transport

/// The control command line, `--control APP VERB ...`, that compose.sh's control commands run.
@Suite(.onItsOwnThread) struct ControlRequestTests {
  @Test func eachCommandReadsItsOperands() throws {
    func parse(_ arguments: String...) throws -> ControlRequest.Verb? {
      try ControlRequest(parsing: ["--control", "timers"] + arguments, program: "host")?.verb
    }
    #expect(try parse("ps") == .ps)
    #expect(try parse("up", "--placement", "t.placement") == .up(hostOptions: ["--placement", "t.placement"]))
    #expect(try parse("kill", "timers") == .signal(.kill, boundary: "timers", index: 0))
    #expect(try parse("stop", "timers", "1") == .signal(.stop, boundary: "timers", index: 1))
    #expect(try parse("cont", "timers", "1") == .signal(.cont, boundary: "timers", index: 1))
    #expect(try parse("slow", "timers", "250") == .slow(boundary: "timers", milliseconds: 250))
    #expect(try parse("logs", "-f") == .logs(boundary: nil, follow: true))
    #expect(try parse("logs", "-f", "timers") == .logs(boundary: "timers", follow: true))
    #expect(try parse("send", "addTimerTapped") == .send(.text("addTimerTapped"), times: 1))
    #expect(try parse("send", "addTimerTapped", "--repeat", "100") == .send(.text("addTimerTapped"), times: 100))
    #expect(try parse("send", "--repeat", "3", "--file", "a.txt") == .send(.file("a.txt"), times: 3))
    // An action the shell split at its spaces is one action.
    #expect(try parse("send", "removeTimerTapped(id:", "1)") == .send(.text("removeTimerTapped(id: 1)"), times: 1))
    #expect(try parse("send", "--file", "a.txt") == .send(.file("a.txt"), times: 1))
    #expect(try parse("state") == .state(boundary: nil, json: false))
    #expect(try parse("state", "--json", "timers") == .state(boundary: "timers", json: true))
    #expect(try ControlRequest(parsing: ["--app", "timers"], program: "host") == nil)
  }

  @Test func theControlSocketsDeadlinesComeFromTheEnvironment() throws {
    let standard = ActorListener.Limits.standard
    #expect(try ActorListener.Limits.control(environment: [:]) == standard)
    let set = try ActorListener.Limits.control(environment: ["BULKHEAD_CONTROL_DEADLINE_MS": "250"])
    #expect(set.readDeadline == .milliseconds(250) && set.idleDeadline == standard.idleDeadline)
    #expect(set.maximumConnections == standard.maximumConnections)
    let idle = try ActorListener.Limits.control(environment: ["BULKHEAD_CONTROL_IDLE_MS": "900"])
    #expect(idle.idleDeadline == .milliseconds(900) && idle.readDeadline == standard.readDeadline)
    for variable in ["BULKHEAD_CONTROL_DEADLINE_MS", "BULKHEAD_CONTROL_IDLE_MS"] {
      for wrong in ["0", "-5", "3600001", "1.5", ""] {
        #expect(throws: ControlError.invalidDeadline(variable: variable, value: wrong, allowed: 1...3_600_000)) {
          try ActorListener.Limits.control(environment: [variable: wrong])
        }
      }
    }
  }

  @Test func theHostRunsAnAppDetachedWithUp() throws {
    #expect(
      try HostRequest(parsing: ["--up", "--app", "timers", "--placement", "t.placement"], program: "host")
        == .up(app: "timers", placement: "t.placement"))
    #expect(throws: DistributionError.self) { try HostRequest(parsing: ["--app", "timers", "--up", "--hold"], program: "host") }
    #expect(throws: DistributionError.self) { try HostRequest(parsing: ["--up"], program: "host") }
  }

  @Test(arguments: [
    (["--control"], "--control needs an app"), (["--control", "timers"], "needs a command"),
    (["--control", "timers", "restart"], "unknown command \"restart\""), (["--control", "timers", "ps", "x"], "ps takes nothing"),
    (["--control", "timers", "kill"], "kill takes a BOUNDARY"), (["--control", "timers", "stop", "t", "-1"], "whole number"),
    (["--control", "timers", "slow", "t"], "slow takes a BOUNDARY and a delay"), (["--control", "timers", "logs", "a", "b"], "logs takes"),
    (["--control", "timers", "send"], "send takes an ACTION"), (["--control", "timers", "send", "--file"], "send takes --file and a FILE"),
    (["--control", "timers", "send", "addTimerTapped", "--repeat", "0"], "--repeat takes how many times to send, 1 to 10000"),
    (["--control", "timers", "send", "addTimerTapped", "--repeat"], "--repeat takes how many times to send"),
    (["--control", "timers", "state", "a", "b"], "state takes a BOUNDARY and --json"),
  ])
  func aControlCommandLineItCannotActOnSaysWhatIsWrong(arguments: [String], problem: String) {
    #expect {
      try ControlRequest(parsing: arguments, program: "host")
    } throws: { error in
      "\(error)".contains(problem) && "\(error)".hasSuffix(ControlRequest.usage(program: "host"))
    }
  }
}
