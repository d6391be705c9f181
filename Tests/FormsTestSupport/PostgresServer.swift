import Foundation
import Testing

/// A real PostgreSQL server for a test: its own cluster in a temporary directory, on a free
/// loopback port, with password authentication (user `formsctl`, password `secret`); stopped
/// and removed by `stop()`. As root, the server runs as the `postgres` user (it refuses root).
public final class PostgresServer: @unchecked Sendable {  // one owner: the test that started it
  public let port: Int
  public let directory: String
  public let bin: String
  private(set) var process: Process

  /// The URL formsctl is given.
  public var url: String { url(query: "sslmode=disable") }

  /// The URL with another query (`sslmode=require`).
  public func url(query: String) -> String { "postgresql://formsctl:secret@127.0.0.1:\(port)/postgres?\(query)" }

  /// With `tls`, the server's self-signed certificate (for 127.0.0.1), the root that verifies it.
  public var certificate: String { directory + "/server.crt" }

  /// Where `initdb` and `postgres` are: on PATH, else Debian's /usr/lib/postgresql/N/bin.
  public static var binDirectory: String? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    let debian = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted()
      .reversed().map { "/usr/lib/postgresql/\($0)/bin" }
    // A link on PATH (/usr/local/bin/initdb) leads to the directory that has all of them.
    return (path + debian).first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }.map {
      URL(fileURLWithPath: $0 + "/initdb").resolvingSymlinksInPath().deletingLastPathComponent().path
    }
  }

  /// Why PostgreSQL tests cannot run here, or nil when they can. In CI (`CI=true`) they must.
  public static var unavailable: String? {
    guard binDirectory == nil else { return nil }
    return "PostgreSQL (initdb, postgres) is not installed; apt-get install postgresql to run the sync tests"
  }

  /// The trait that runs a test where PostgreSQL is, and always in CI (where its absence fails).
  public static var enabled: ConditionTrait {
    .enabled(
      if: unavailable == nil || ProcessInfo.processInfo.environment["CI"] == "true",
      Comment(rawValue: unavailable ?? ""))
  }

  /// Starts a server; throws when it does not come up. With `tls`, it accepts TCP connections
  /// only over TLS, with a certificate made for the run (`certificate`).
  public init(tls: Bool = false) throws {
    guard let bin = Self.binDirectory else { throw Failure(message: Self.unavailable ?? "") }
    self.bin = bin
    directory = "/tmp/formsctl-pg-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try "secret\n".write(toFile: directory + "/pw", atomically: true, encoding: .utf8)
    let root = getuid() == 0
    if root { try Self.run(["/bin/chown", "-R", "postgres:postgres", directory]) }
    // setpriv executes the program itself (no child), so signals reach the server.
    let prefix = root ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups"] : []
    try Self.run(
      prefix + [
        bin + "/initdb", "-D", directory + "/data", "-U", "formsctl", "--pwfile=" + directory + "/pw",
        "--auth=scram-sha-256", "-E", "UTF8", "--no-sync", "--locale=C",
      ])
    var settings: [String] = []
    if tls {
      try Self.makeCertificate(at: directory + "/server", subject: "127.0.0.1")
      if root { try Self.run(["/bin/chown", "postgres:postgres", directory + "/server.key"]) }
      try "local all all scram-sha-256\nhostssl all all 127.0.0.1/32 scram-sha-256\n".write(
        toFile: directory + "/data/pg_hba.conf", atomically: false, encoding: .utf8)
      settings = [
        "-c", "ssl=on", "-c", "ssl_cert_file=\(directory)/server.crt", "-c", "ssl_key_file=\(directory)/server.key",
      ]
    }
    port = try Self.freePort()
    arguments =
      prefix + [bin + "/postgres"] + [
        "-D", directory + "/data", "-h", "127.0.0.1", "-p", "\(port)", "-k", directory, "-F",
      ] + settings
    process = try Self.start(arguments, bin: bin, port: port)
  }

  private let arguments: [String]

  /// Starts the server process and waits until it accepts connections.
  private static func start(_ arguments: [String], bin: String, port: Int) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try process.run()
    for _ in 0..<200 {
      if (try? Self.run([bin + "/pg_isready", "-q", "-h", "127.0.0.1", "-p", "\(port)"])) != nil { return process }
      usleep(50_000)
    }
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    throw Failure(message: "PostgreSQL did not start on port \(port)")
  }

  /// Stops the server (fast shutdown) and keeps its cluster; `resume()` starts it again.
  public func pause() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
  }

  /// Starts the paused server again, on the same port and cluster (a database restart).
  public func resume() throws { process = try Self.start(arguments, bin: bin, port: port) }

  /// Runs `sql` with psql as the test's superuser; its unaligned output.
  @discardableResult
  public func psql(_ sql: String) throws -> String {
    let psql = FileManager.default.isExecutableFile(atPath: bin + "/psql") ? bin + "/psql" : "/usr/bin/psql"
    return try Self.run(
      [
        psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "formsctl",
        "-d", "postgres", "-c", sql,
      ], environment: ["PGPASSWORD": "secret"])
  }

  /// Stops the server (fast shutdown) and removes its cluster.
  public func stop() {
    pause()
    try? FileManager.default.removeItem(atPath: directory)
  }

  public struct Failure: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }

  @discardableResult
  static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failure(
        message: "\(arguments.joined(separator: " ")): exit \(process.terminationStatus): "
          + String(decoding: errors, as: UTF8.self))
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// A self-signed certificate for `subject` (an IP address) at `base.crt`, its key at `base.key`.
  public static func makeCertificate(at base: String, subject: String) throws {
    try run([
      "/usr/bin/env", "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
      "/CN=\(subject)", "-addext", "subjectAltName=IP:\(subject)", "-keyout", base + ".key", "-out", base + ".crt",
    ])
    chmod(base + ".key", 0o600)
    chmod(base + ".crt", 0o644)
  }

  /// A TCP port nobody listens on now.
  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw Failure(message: "no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
