import CSystem
import Foundation
import Testing
import Transport
#if canImport(Glibc)
  import Glibc
#endif

@Suite struct SocketTests {
  @Test func framesSurviveManySmallWritesAndOneBigWrite() throws {
    let (left, right) = try UnixSocket.pair()
    let sender = FramedConnection(left)
    let receiver = FramedConnection(right)
    let frames = (0..<200).map { Frame(kind: UInt8($0 % 7), payload: Array(repeating: UInt8($0 & 0xFF), count: $0 * 3)) }
    // About 60 KB: within the socket's buffer, so one thread can write it all, then read.
    try sender.send(frames)
    for frame in frames { #expect(try receiver.receive() == frame) }
    left.shutdown()
    #expect(try receiver.receive() == nil)
  }

  @Test func partialFramesAreReassembled() throws {
    let (left, right) = try UnixSocket.pair()
    let receiver = FramedConnection(right)
    var wire: [UInt8] = []
    FramedConnection.append(Frame(kind: 3, payload: [1, 2, 3, 4, 5]), to: &wire)
    for byte in wire { try [byte].withUnsafeBytes { try left.write($0) } }
    #expect(try receiver.receive() == Frame(kind: 3, payload: [1, 2, 3, 4, 5]))
  }

  @Test func oversizedAndTruncatedFramesAreTypedErrors() throws {
    let (left, right) = try UnixSocket.pair()
    let receiver = FramedConnection(right, maximumPayload: 100)
    var oversized: [UInt8] = []
    FramedConnection.append(Frame(kind: 1, payload: [UInt8](repeating: 7, count: 65535)), to: &oversized)
    try oversized.prefix(Frame.headerSize).withUnsafeBytes { try left.write($0) }
    #expect(throws: TransportError.frameTooLarge(length: 65535, limit: 100)) { try receiver.receive() }

    let (other, otherRight) = try UnixSocket.pair()
    let truncated = FramedConnection(otherRight)
    var promised: [UInt8] = []
    FramedConnection.append(Frame(kind: 1, payload: [UInt8](repeating: 9, count: 10)), to: &promised)
    try promised.prefix(Frame.headerSize + 2).withUnsafeBytes { try other.write($0) }
    other.shutdown()
    #expect(throws: TransportError.truncatedFrame(received: 13, expected: 21)) { try truncated.receive() }
  }

  @Test func aFrameDamagedOnTheWayIsRefusedByItsChecksum() throws {
    let frame = Frame(kind: 3, payload: Array("a state patch".utf8))
    // Every byte, the length's too: a damaged length is found before the reader waits for
    // the bytes it promises.
    for position in 0..<(Frame.headerSize + frame.payload.count) {
      let (left, right) = try UnixSocket.pair()
      let receiver = FramedConnection(right)
      var wire: [UInt8] = []
      FramedConnection.append(frame, to: &wire)
      wire[position] ^= 0x10
      try wire.withUnsafeBytes { try left.write($0) }
      #expect(throws: TransportError.self, "a bit flipped at byte \(position)") { try receiver.receive() }
    }
    // The check against a CRC-32C computed elsewhere: "123456789" is 0xE3069283.
    #expect(Array("123456789".utf8).withUnsafeBytes { bulkhead_crc32c(0, $0.baseAddress, $0.count) } == 0xE306_9283)
  }

  @Test func aPathTooLongSaysHowLongAndWhere() throws {
    let path = "/tmp/" + String(repeating: "x", count: 200) + ".sock"
    #expect(throws: TransportError.pathTooLong(path: path, length: 210, limit: 107)) {
      try UnixListener(path: path)
    }
    #expect("\(TransportError.pathTooLong(path: path, length: 210, limit: 107))".contains("at most 107"))
  }

  @Test func listenersLiveInAPrivateDirectoryAndCleanUp() throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    var info = stat()
    #expect(stat(directory.path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700)
    let path = directory.path(for: "one")
    var listener: UnixListener? = try UnixListener(path: path)
    #expect(throws: TransportError.addressInUse(path)) { try UnixListener(path: path) }
    let client = try UnixSocket.connect(to: path)
    let server = try listener!.accept()
    let credentials = try server.peerCredentials()
    #expect(credentials.pid == getpid())
    #expect(credentials.uid == getuid())
    client.close()
    listener = nil
    #expect(access(path, F_OK) != 0, "the socket file is removed on close")
    #expect(throws: TransportError.connectionRefused(path)) { try UnixSocket.connect(to: path) }
  }

  @Test func aStaleSocketFileIsReplaced() throws {
    let directory = try SocketDirectory.create()
    defer { directory.remove() }
    let path = directory.path(for: "stale")
    // A socket file whose listener vanished without cleaning up.
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    close(descriptor)
    #expect(access(path, F_OK) == 0)
    let listener = try UnixListener(path: path)
    _ = try UnixSocket.connect(to: path)
    listener.close()
  }

  @Test func missingDirectoriesAreNamed() throws {
    #expect(throws: TransportError.directoryMissing("/tmp/no-such-bulkhead-dir")) {
      try UnixListener(path: "/tmp/no-such-bulkhead-dir/a.sock")
    }
  }
}
