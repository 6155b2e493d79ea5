import PostgresClient

/// Row-level security scope: every tenant table is visible only for the tenant set in the
/// current transaction (`payrun.tenant_id`, see sql/README.md).
public enum TenantScope {
    /// Sets the transaction's tenant. Must be called inside a transaction (the setting is local).
    public static func set(_ tenantId: Int64, on connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("SELECT set_config('payrun.tenant_id', $1, true)", [.text(String(tenantId))])
    }
}
