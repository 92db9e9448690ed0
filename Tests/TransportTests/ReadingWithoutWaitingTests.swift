import Glibc
import Testing
@testable import Transport

/// `readAvailable()` takes what the socket holds without waiting: the check a spinning reader
/// makes. What it buffers must still reach `receive()`, errors included.
@Suite(.timeLimit(.minutes(1))) struct ReadingWithoutWaitingTests {
  @Test func aFrameThatCameInPiecesIsReceivedWhole() throws {
    let frame = Frame(kind: 3, payload: Array(0..<200).map { UInt8($0) })
    let bytes = try encoded(frame)
    let (left, right) = try UnixSocket.pair()
    let reader = FramedConnection(right)
    #expect(!reader.readAvailable())
    #expect(!reader.isReadyToReceive)
    try write(bytes[..<7], to: left)
    #expect(reader.readAvailable())
    #expect(!reader.isReadyToReceive)
    try write(bytes[7...], to: left)
    #expect(reader.readAvailable())
    #expect(reader.isReadyToReceive)
    #expect(try reader.receive() == frame)
  }

  @Test func framesLargerThanTheBufferAndManyAtOnceAllArrive() throws {
    let frames = [Frame(kind: 1, payload: [UInt8](repeating: 9, count: 150_000))]
      + (0..<50).map { Frame(kind: 2, payload: [UInt8($0)]) }
    let (left, right) = try UnixSocket.pair()
    let reader = FramedConnection(right)
    // More than the socket may hold: written from another thread while this one reads.
    let bytes = try frames.flatMap(encoded)
    let descriptor = left.descriptor
    DetachedThread.run {
      var offset = 0
      while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        guard written > 0 else { return }
        offset += written
      }
    }
    var received: [Frame] = []
    while received.count < frames.count {
      _ = reader.readAvailable()
      received.append(try #require(try reader.receive()))
    }
    #expect(received == frames)
    withExtendedLifetime(left) {}
  }

  @Test func theEndIsReportedByTheNextReceive() throws {
    let (left, right) = try UnixSocket.pair()
    let reader = FramedConnection(right)
    left.shutdown()
    #expect(reader.readAvailable())
    #expect(reader.isReadyToReceive)
    #expect(try reader.receive() == nil)
  }

  @Test func aDamagedOrOversizedHeaderIsReportedWithoutWaitingForMore() throws {
    let damaged = [UInt8](repeating: 0xFF, count: Frame.headerSize)
    var oversized = try encoded(Frame(kind: 1, payload: []))
    let length = UInt32(2_000)
    let check = Frame.headerCheck(length: length, kind: 1)
    oversized.replaceSubrange(0..<4, with: withUnsafeBytes(of: length.littleEndian) { Array($0) })
    oversized.replaceSubrange(5..<7, with: withUnsafeBytes(of: check.littleEndian) { Array($0) })
    for (header, expected) in [
      (damaged, nil), (oversized, TransportError.frameTooLarge(length: 2_000, limit: 1_000)),
    ] {
      let (left, right) = try UnixSocket.pair()
      let reader = FramedConnection(right, maximumPayload: 1_000)
      try write(header[...], to: left)
      #expect(reader.readAvailable())
      #expect(reader.isReadyToReceive, "the socket is empty now: only the buffer says there is something to report")
      do {
        _ = try reader.receive()
        Issue.record("a bad header was received")
      } catch {
        if let expected { #expect(error == expected) } else { guard case .malformed = error else { Issue.record("\(error)"); continue } }
      }
    }
  }

  @Test func aServingThreadThatSpinsReportsADamagedHeaderAtOnce() async throws {
    let (left, right) = try UnixSocket.pair()
    let (ended, ending) = AsyncStream<TransportError?>.makeStream()
    let system = SocketActorSystem(connection: FramedConnection(right), reading: .byServingThread) {
      ending.yield($0)
    }
    DetachedThread.run { system.serve() }
    try write([UInt8](repeating: 0xFF, count: Frame.headerSize)[...], to: left)
    let error = await ended.first { _ in true }
    guard case .malformed? = error ?? nil else {
      Issue.record("the connection ended with \(String(describing: error)), not as malformed")
      return
    }
  }

  private func encoded(_ frame: Frame) throws -> [UInt8] {
    let (left, right) = try UnixSocket.pair()
    try FramedConnection(left).send(frame)
    left.shutdown()
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let read = try chunk.withUnsafeMutableBytes { try right.read(into: $0) }
      if read == 0 { return bytes }
      bytes += chunk[..<read]
    }
  }

  private func write(_ bytes: ArraySlice<UInt8>, to socket: UnixSocket) throws {
    try bytes.withUnsafeBytes { try socket.write($0) }
  }
}
