// The command lines that put an executable in one of the two roles a host starts it in.
extension WorkerCommand {
  /// The arguments that put an executable in the worker role: a flag no user passes by chance,
  /// the app, and the boundary. The launch itself (socket and secret) comes on standard input.
  package struct Role: Equatable {
    package static let flag = "--bulkhead-worker"

    package let app: String
    package let boundary: String

    package var arguments: [String] { [Self.flag, app, boundary] }

    package init(app: String, boundary: String) {
      (self.app, self.boundary) = (app, boundary)
    }

    /// The worker role `arguments` ask for: nil when they do not start with the flag.
    ///
    /// - Throws: a usage message when the flag is there with the wrong number of values.
    package init?(parsing arguments: [String]) throws(DistributionError) {
      guard arguments.first == Self.flag else { return nil }
      guard arguments.count == 3 else {
        throw .usage("\(Self.flag) takes an app and a boundary, and only a host passes it")
      }
      self.init(app: arguments[1], boundary: arguments[2])
    }
  }

  /// The arguments that put an executable in the worker-template role for `app`: it loads the
  /// app's code once, then forks a worker for each boundary its host asks for (`WorkerTemplate`).
  package struct TemplateRole: Equatable {
    package static let flag = "--bulkhead-zygote"

    package let app: String

    package var arguments: [String] { [Self.flag, app] }

    package init(app: String) { self.app = app }

    /// The template role `arguments` ask for: nil when they do not start with the flag.
    ///
    /// - Throws: a usage message when the flag is there without exactly one app.
    package init?(parsing arguments: [String]) throws(DistributionError) {
      guard arguments.first == Self.flag else { return nil }
      guard arguments.count == 2 else {
        throw .usage("\(Self.flag) takes an app, and only a host passes it")
      }
      self.init(app: arguments[1])
    }
  }
}
