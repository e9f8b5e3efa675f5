// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Multicall3 (aggregate3 only)
/// @notice The one function of Multicall3 (github.com/mds1/multicall) viem's `multicall` calls,
///         for dev chains: the local stack puts its code at Multicall3's canonical address
///         (0xcA11bde05977b3631167028862bE2a173976CA11) on the mainnet dev chain, as Polygon has it.
contract Multicall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory data) = calls[i].target.call(calls[i].callData);
            if (!success && !calls[i].allowFailure) revert("Multicall3: call failed");
            returnData[i] = Result(success, data);
        }
    }
}
