import Bulkhead
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A feature for studying resource limits: three children that run away — with memory, with
/// a core, with descriptors — beside a steady counter. Place each in a worker with a limit
/// (`placements/runaway.placement`) and the kernel holds it there.
public struct Runaway: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var hog = Hog.State()
    public var spinner = Spinner.State()
    public var opener = Opener.State()
    public var steady = Counter.State()
    public init() {}
  }

  public enum Action: Equatable, Codable, Sendable {
    case hog(Hog.Action)
    case spinner(Spinner.Action)
    case opener(Opener.Action)
    case steady(Counter.Action)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Scope(state: \.hog, action: Action.hog) { Hog() }
    Scope(state: \.spinner, action: Action.spinner) { Spinner() }
    Scope(state: \.opener, action: Action.opener) { Opener() }
    Scope(state: \.steady, action: Action.steady) { Counter() }
  }

  /// Leaks memory: each `grow` allocates, touches and keeps `megabytes` more, as a cache sized
  /// far past what its process may hold would: it lets the oldest go only beyond 256 MB, so
  /// that a run with the hog in the host (a study's first) costs the host no more.
  public struct Hog: Reducer {
    public struct State: Equatable, Codable, Sendable {
      /// How many megabytes it has kept, as far as the host's copy knows.
      public var megabytes = 0
      public init() {}
    }

    public enum Action: Equatable, Codable, Sendable {
      case grow(megabytes: Int)
    }

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .grow(megabytes):
        // Written to, so that every page is resident, not only reserved.
        let block = [UInt8](repeating: 1, count: megabytes << 20)
        Self.kept.withLock { kept in
          kept.append(block)
          while kept.map(\.count).reduce(0, +) > Self.most, kept.count > 1 { kept.removeFirst() }
        }
        state.megabytes += megabytes
      }
      return .none
    }

    /// What it keeps: the leak lives as long as the process.
    private static let kept = Mutex<[[UInt8]]>([])
    private static let most = 256 << 20
  }

  /// Takes a core: `spin` starts an effect that busy-loops for `milliseconds` of wall time,
  /// then says so with `spun`.
  public struct Spinner: Reducer {
    public struct State: Equatable, Codable, Sendable {
      public var spins = 0
      public init() {}
    }

    public enum Action: Equatable, Codable, Sendable {
      case spin(milliseconds: Int)
      case spun
    }

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .spin(milliseconds):
        return .run { send in
          let end = ContinuousClock.now + .milliseconds(milliseconds)
          var turns = 0
          while ContinuousClock.now < end { turns &+= 1 }
          await send(.spun)
        }
      case .spun:
        state.spins += 1
        return .none
      }
    }
  }

  /// Takes descriptors: `exhaust` opens `/dev/null` until the process may open no more (or
  /// `most` are open), notes how many it opened and why it stopped, then closes them all.
  public struct Opener: Reducer {
    public struct State: Equatable, Codable, Sendable {
      /// How many it opened on the last `exhaust`.
      public var opened = 0
      /// The errno that stopped it (EMFILE at the limit); nil when it reached `most`.
      public var stoppedBy: Int32?
      public init() {}
    }

    public enum Action: Equatable, Codable, Sendable {
      case exhaust(most: Int)
    }

    public init() {}

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .exhaust(most):
        var opened: [Int32] = []
        state.stoppedBy = nil
        while opened.count < most {
          let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
          guard descriptor >= 0 else {
            state.stoppedBy = errno
            break
          }
          opened.append(descriptor)
        }
        state.opened = opened.count
        for descriptor in opened { close(descriptor) }
      }
      return .none
    }
  }
}
