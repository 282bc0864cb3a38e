package dev.ortho.vm;

/** A ref object for tests: counts destroys. */
final class TestRef extends AbstractRefObject {
    static final RefType TYPE_A = RefType.of("test.a", TestRef.class);
    static final RefType TYPE_B = RefType.of("test.b", TestRef.class);

    final RefType type;
    final int id;
    int destroyed;

    TestRef(RefType type, int id) {
        this.type = type;
        this.id = id;
    }

    static TestRef a(int id) {
        return new TestRef(TYPE_A, id);
    }

    static TestRef b(int id) {
        return new TestRef(TYPE_B, id);
    }

    @Override
    public RefType refType() {
        return type;
    }

    @Override
    protected void destroy() {
        destroyed++;
    }
}
