import CPushLab
import XCTest

/// The allocator the server's nghttp2 sessions use (`cpl_h2_pool`, Sources/CPushLab/server_shim.c):
/// freed blocks come back for the next allocation of their size class, contents survive a
/// realloc, calloc zeroes reused blocks, and what it keeps is bounded.
final class HTTP2AllocationPoolTests: XCTestCase {
    private func withPool(_ body: (nghttp2_mem, OpaquePointer) throws -> Void) throws {
        let pool = try XCTUnwrap(cpl_h2_pool_new())
        defer { cpl_h2_pool_free(pool) }
        let mem = cpl_h2_pool_allocator(pool).pointee
        try body(mem, pool)
    }

    func testFreedBlocksAreReusedAndCallocZeroesThem() throws {
        try withPool { mem, pool in
            let first = try XCTUnwrap(mem.malloc(200, mem.mem_user_data))
            memset(first, 0xAB, 200)
            mem.free(first, mem.mem_user_data)
            let again = try XCTUnwrap(mem.malloc(210, mem.mem_user_data))  // the same class (193–224 bytes)
            XCTAssertEqual(again, first, "a freed block is handed out again for its size class")
            mem.free(again, mem.mem_user_data)
            let zeroed = try XCTUnwrap(mem.calloc(10, 20, mem.mem_user_data))
            XCTAssertEqual(zeroed, first)
            let bytes = UnsafeRawBufferPointer(start: zeroed, count: 200)
            XCTAssertTrue(bytes.allSatisfy { $0 == 0 }, "calloc on a reused block must zero it")
            mem.free(zeroed, mem.mem_user_data)
            let stats = cpl_h2_pool_get_stats(pool)
            XCTAssertEqual(stats.served, 3)
            XCTAssertEqual(stats.reused, 2)
            XCTAssertEqual(stats.live, 0)
            XCTAssertEqual(stats.retained, 224)
        }
    }

    func testReallocKeepsContentsAcrossClassesAndIntoDirectBlocks() throws {
        try withPool { mem, pool in
            var block = try XCTUnwrap(mem.malloc(20, mem.mem_user_data))
            for index in 0..<20 { block.storeBytes(of: UInt8(index), toByteOffset: index, as: UInt8.self) }
            for size in [30, 32, 33, 500, 1024, 1025, 5000, 64, 0x10000] {
                block = try XCTUnwrap(mem.realloc(block, size, mem.mem_user_data))
                let bytes = UnsafeRawBufferPointer(start: block, count: 20)
                XCTAssertEqual(Array(bytes), (0..<20).map(UInt8.init), "after realloc to \(size)")
                XCTAssertEqual(Int(bitPattern: block) % 16, 0, "16-byte aligned after realloc to \(size)")
            }
            XCTAssertNil(mem.realloc(block, 0, mem.mem_user_data), "realloc to 0 frees")
            XCTAssertEqual(cpl_h2_pool_get_stats(pool).live, 0)
            let null = mem.realloc(nil, 40, mem.mem_user_data)
            XCTAssertNotNil(null, "realloc(NULL) allocates")
            mem.free(null, mem.mem_user_data)
            mem.free(nil, mem.mem_user_data)
        }
    }

    func testWhatThePoolKeepsIsBounded() throws {
        try withPool { mem, pool in
            // 1,000 live 1 KiB blocks (a burst of streams), all freed: the pool keeps at most its
            // bound and gives the rest back to malloc; big blocks are never kept.
            let blocks = try (0..<1000).map { _ in try XCTUnwrap(mem.malloc(1000, mem.mem_user_data)) }
            let big = try XCTUnwrap(mem.malloc(64 << 10, mem.mem_user_data))
            for block in blocks { mem.free(block, mem.mem_user_data) }
            mem.free(big, mem.mem_user_data)
            let stats = cpl_h2_pool_get_stats(pool)
            XCTAssertEqual(stats.live, 0)
            XCTAssertLessThanOrEqual(stats.retained, Int(CPL_H2_POOL_RETAINED_BYTES))
            XCTAssertGreaterThan(stats.retained, Int(CPL_H2_POOL_RETAINED_BYTES) - 1024, "keeps up to its bound")
        }
    }
}
