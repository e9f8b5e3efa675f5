// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DemoAgents} from "./DemoAgents.sol";

/// @title LyingRentableAgents
/// @notice A broken collection for fault tests: it claims ERC-4907 (`supportsInterface(0xad092b5c)`
///         answers true) but `userOf` and `userExpires` revert. An owner's agents in it must stay
///         reachable by the owner; nobody becomes a renter through it.
/// @dev Tests only (open mint, as DemoAgents).
contract LyingRentableAgents is DemoAgents {
    error NotRentable(uint256 tokenId);

    function supportsInterface(bytes4 interfaceId) public pure virtual override returns (bool) {
        return interfaceId == 0xad092b5c || super.supportsInterface(interfaceId);
    }

    function userOf(uint256 tokenId) external pure returns (address) {
        revert NotRentable(tokenId);
    }

    function userExpires(uint256 tokenId) external pure returns (uint256) {
        revert NotRentable(tokenId);
    }
}
