/// The version of formsctl, written into snapshots and history.
public let formsctlVersion = "0.1.0"
