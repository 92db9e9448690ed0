import Foundation

/// The pixels of an 8-bit RGB or RGBA PNG (what a headless browser's screenshot is), read with
/// the system's zlib, loaded at run time: enough for a test to look for a chart's colours.
struct PNGImage {
  let width: Int
  let height: Int
  /// Red, green, blue per pixel, row by row.
  let pixels: [UInt8]

  enum Failure: Error, CustomStringConvertible {
    case unreadable(String)
    var description: String {
      switch self {
      case let .unreadable(reason): "not a PNG this reader takes: \(reason)"
      }
    }
  }

  init(contentsOf path: String) throws {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Failure.unreadable("no signature") }
    var offset = 8
    var header: [UInt8] = []
    var compressed: [UInt8] = []
    func number(at index: Int) -> Int { bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) } }
    while offset + 8 <= bytes.count {
      let length = number(at: offset)
      let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
      guard offset + 12 + length <= bytes.count else { throw Failure.unreadable("a chunk runs past the end") }
      let data = bytes[offset + 8..<offset + 8 + length]
      if type == "IHDR" { header = Array(data) }
      if type == "IDAT" { compressed += data }
      offset += 12 + length
    }
    guard header.count == 13 else { throw Failure.unreadable("no header") }
    width = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
    height = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
    guard header[8] == 8, header[12] == 0, let channels = [2: 3, 6: 4][Int(header[9])] else {
      throw Failure.unreadable("bit depth \(header[8]), colour type \(header[9]), interlace \(header[12])")
    }
    let stride = width * channels
    let raw = try Self.inflate(compressed, size: height * (stride + 1))
    var rows = [UInt8](repeating: 0, count: height * stride)
    for row in 0..<height {
      let filter = raw[row * (stride + 1)]
      for column in 0..<stride {
        let value = raw[row * (stride + 1) + 1 + column]
        let left = column >= channels ? Int(rows[row * stride + column - channels]) : 0
        let up = row > 0 ? Int(rows[(row - 1) * stride + column]) : 0
        let upLeft = row > 0 && column >= channels ? Int(rows[(row - 1) * stride + column - channels]) : 0
        let predicted: Int =
          switch filter {
          case 1: left
          case 2: up
          case 3: (left + up) / 2
          case 4: Self.paeth(left, up, upLeft)
          default: 0
          }
        rows[row * stride + column] = UInt8(truncatingIfNeeded: Int(value) + predicted)
      }
    }
    pixels = (0..<width * height).flatMap { pixel in rows[pixel * channels..<pixel * channels + 3] }
  }

  /// How many pixels have exactly this colour.
  func count(red: UInt8, green: UInt8, blue: UInt8) -> Int {
    stride(from: 0, to: pixels.count, by: 3).count { pixels[$0] == red && pixels[$0 + 1] == green && pixels[$0 + 2] == blue }
  }

  private static func paeth(_ left: Int, _ up: Int, _ upLeft: Int) -> Int {
    let estimate = left + up - upLeft
    let (toLeft, toUp, toUpLeft) = (abs(estimate - left), abs(estimate - up), abs(estimate - upLeft))
    if toLeft <= toUp && toLeft <= toUpLeft { return left }
    return toUp <= toUpLeft ? up : upLeft
  }

  private typealias Uncompress = @convention(c) (
    UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt>, UnsafePointer<UInt8>, UInt
  ) -> Int32

  private static func inflate(_ compressed: [UInt8], size: Int) throws -> [UInt8] {
    guard let zlib = dlopen("libz.so.1", RTLD_NOW), let symbol = dlsym(zlib, "uncompress") else {
      throw Failure.unreadable("the system's zlib (libz.so.1) is not there")
    }
    defer { dlclose(zlib) }
    guard !compressed.isEmpty, size > 0 else { throw Failure.unreadable("no image data") }
    let uncompress = unsafeBitCast(symbol, to: Uncompress.self)
    var output = [UInt8](repeating: 0, count: size)
    var length = UInt(size)
    let status = output.withUnsafeMutableBufferPointer { out in
      compressed.withUnsafeBufferPointer { input in
        uncompress(out.baseAddress!, &length, input.baseAddress!, UInt(input.count))
      }
    }
    guard status == 0, length == UInt(size) else { throw Failure.unreadable("zlib said \(status)") }
    return output
  }
}
