import CSystem
#if canImport(Glibc)
  import Glibc
#endif
import Synchronization

/// Who reads a connection that its system's thread reads (`ConnectionThread`), when a caller
/// may read its own reply: the thread, nobody (the thread waits for the socket), or, for a
/// moment, one caller. Only whoever holds the read side touches the reading half.
///
/// A caller takes the read side only from nobody, and only when the thread has nothing it was
/// handed to handle, so frames are still handled in the order they came. It reads replies
/// (its own and other callers') and stops at anything else, a call from the peer or the
/// connection's end, which it hands to the thread: the thread handles that first, before it
/// reads on, so calls from the peer still start on the thread, in order.
struct ReadSideMachine {
  enum Owner: Equatable {
    case thread
    /// The thread waits for the socket, or runs jobs: a caller may take the read side.
    case nobody
    case caller
    /// The thread has ended the connection: nobody reads any more.
    case ended
  }

  /// What a caller read that is not a reply, for the thread.
  enum Handed: Equatable {
    case frame(Frame)
    /// The connection ended, with the error that ended it, if any.
    case end(TransportError?)
  }

  private(set) var owner: Owner = .thread
  private(set) var handed: Handed?
  /// False where the thread cannot stop watching the socket without being woken (no epoll):
  /// there only the thread reads.
  let callersMayRead: Bool

  init(callersMayRead: Bool) {
    self.callersMayRead = callersMayRead
  }

  /// A caller takes the read side; false when the thread or another caller holds it, or the
  /// thread has something to handle first.
  mutating func callerTakes() -> Bool {
    guard callersMayRead, owner == .nobody, handed == nil else { return false }
    owner = .caller
    return true
  }

  /// The caller gives the read side back, handing the thread what it read that is not a
  /// reply, if anything. True when the thread must be woken to handle what the socket will
  /// not announce: what it was handed, or whole frames (`buffered`) the caller read past its
  /// reply.
  mutating func callerGivesBack(handing: Handed?, buffered: Bool) -> Bool {
    precondition(owner == .caller, "a caller gave back a read side it did not hold")
    owner = .nobody
    handed = handing
    return handing != nil || buffered
  }

  /// What the thread may do when it would read.
  enum ThreadTurn: Equatable {
    /// A caller holds the read side, or the connection has ended: the thread waits.
    case waits
    /// The thread holds the read side: it handles what a caller handed it first, if anything.
    case reads(Handed?)
  }

  /// The thread takes the read side, unless a caller holds it.
  mutating func threadTakes() -> ThreadTurn {
    guard owner == .nobody || owner == .thread else { return .waits }
    owner = .thread
    defer { handed = nil }
    return .reads(handed)
  }

  /// The thread is about to wait, or to run jobs: a caller may take the read side meanwhile.
  mutating func threadLetsGo() {
    if owner == .thread { owner = .nobody }
  }

  /// The thread has ended the connection.
  mutating func end() {
    owner = .ended
  }
}

/// The reading half of a connection that its system's thread reads, shared with the callers
/// that read their own replies (`ReadSideMachine`), and how the thread waits for it.
///
/// The thread waits on an epoll instance that watches the socket and the thread's wake-up; a
/// caller that takes the read side stops it watching the socket, so a reply the caller reads
/// wakes no other thread, and watches it again when it gives the read side back: a frame that
/// came meanwhile wakes the thread then.
final class ReadSide: Sendable {
  let half: ConnectionHalf
  /// With the spin of the caller that holds the read side, kept from one caller to the next
  /// so that a peer slow to answer is not spun for again.
  private let machine: Mutex<(machine: ReadSideMachine, spin: BriefSpin)>
  /// -1 when this process could have no epoll instance: the thread then polls, and reads alone.
  private let epoll: Int32
  private let socket: Int32
  private let wakeup: Int32
  private static let socketToken: UInt64 = 0
  private static let wakeupToken: UInt64 = 1

  /// The read side of `half`, whose thread is woken through `wakeup`.
  init(_ half: ConnectionHalf, wakeup: Int32) {
    self.half = half
    socket = half.connection.socket.descriptor
    self.wakeup = wakeup
    var epoll = bulkhead_epoll_create()
    if epoll >= 0,
      bulkhead_epoll_add(epoll, socket, Self.socketToken) != 0 || bulkhead_epoll_add(epoll, wakeup, Self.wakeupToken) != 0
    {
      close(epoll)
      epoll = -1
    }
    self.epoll = epoll
    machine = Mutex((ReadSideMachine(callersMayRead: epoll >= 0), BriefSpin()))
  }

  deinit {
    if epoll >= 0 { close(epoll) }
  }

  /// For a caller: takes the read side and stops the thread watching the socket, and hands
  /// out the callers' spin; nil when the caller must leave its reply to the thread.
  func callerTakes() -> BriefSpin? {
    machine.withLock { shared in
      guard shared.machine.callerTakes() else { return nil }
      // Under the lock: a caller that gives back in between must not leave the socket unwatched.
      _ = bulkhead_epoll_arm(epoll, socket, Self.socketToken, 0)
      return shared.spin
    }
  }

  /// For the caller that holds the read side: gives it back with its spin, as
  /// `callerGivesBack` says, and has the thread watch the socket again (which wakes it if a
  /// frame is there).
  func callerGivesBack(handing: ReadSideMachine.Handed?, spin: BriefSpin) {
    let buffered = half.connection.isReadyToReceive
    machine.withLock { shared in
      let wake = shared.machine.callerGivesBack(handing: handing, buffered: buffered)
      shared.spin = spin
      _ = bulkhead_epoll_arm(epoll, socket, Self.socketToken, 1)
      // The thread cannot end while the read side is out of its hands, so its wake-up is open.
      if wake { _ = bulkhead_wakeup_signal(wakeup) }
    }
  }

  /// For a caller whose spin did not find its reply, once the reply has come some other way.
  func callerWaited(_ begun: BriefSpin.Begun) {
    machine.withLock { $0.spin.end(begun) }
  }

  /// For the thread: as `ReadSideMachine.threadTakes()`.
  func threadTakes() -> ReadSideMachine.ThreadTurn {
    machine.withLock { $0.machine.threadTakes() }
  }

  /// For the thread: as `ReadSideMachine.threadLetsGo()`.
  func threadLetsGo() {
    machine.withLock { $0.machine.threadLetsGo() }
  }

  /// For the thread, as it ends the connection.
  func end() {
    machine.withLock { $0.machine.end() }
  }

  /// What woke a thread that waited.
  struct Woken {
    var socket = false
    var wakeup = false
  }

  /// For the thread: waits until the socket (unless a caller holds it) or the wake-up is
  /// readable, at most `milliseconds`.
  func wait(milliseconds: Int32) -> Woken {
    var woken = Woken()
    guard epoll >= 0 else {
      var descriptors = [
        pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&descriptors, 2, milliseconds) > 0 else { return woken }
      woken.socket = descriptors[0].revents != 0
      woken.wakeup = descriptors[1].revents != 0
      return woken
    }
    return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2) { tokens in
      let count = bulkhead_epoll_wait(epoll, tokens.baseAddress, 2, milliseconds)
      for token in tokens.prefix(max(0, Int(count))) {
        if token == Self.socketToken { woken.socket = true } else { woken.wakeup = true }
      }
      return woken
    }
  }
}
